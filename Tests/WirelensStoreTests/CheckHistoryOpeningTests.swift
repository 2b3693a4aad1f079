import Dispatch
import Foundation
import Synchronization
import WirelensStore
import XCTest

/// Opening a check history that another connection creates at the same moment (`wirelens history` or a test reading
/// while `check --every` starts).
final class CheckHistoryOpeningTests: XCTestCase {
    /// Two openers of one new database at once both get it: neither fails with "table check_result already exists"
    /// (each saw no migration applied, then ran it after the other). SQLite itself is the judge: both open, and the
    /// table exists once with its index.
    func testTwoOpenersOfANewDatabaseAtOnceBothSucceed() throws {
        let directory = NSTemporaryDirectory() + "wirelens-history-race-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failures = Mutex<[String]>([])
        for round in 0..<40 {
            let path = "\(directory)/r\(round).sqlite"
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    _ = try CheckHistory(path: path)
                } catch {
                    failures.withLock { $0.append("round \(round): \(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
    }
}
