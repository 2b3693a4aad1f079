import Dispatch
import Foundation
import Synchronization
import WirelensStore
import XCTest

/// Opening a database that another connection creates at the same moment: `wirelens history` (or a test reading)
/// while `check --every` starts, two uploads starting with one journal.
final class ConcurrentOpeningTests: XCTestCase {
    /// Two openers of one new check history at once both get it: neither fails with "table check_result already
    /// exists" (each saw no migration applied, then ran it after the other) or "database is locked" (switching a
    /// new file to WAL does not wait). 4 of 40 rounds failed before.
    func testTwoOpenersOfANewHistoryAtOnceBothSucceed() throws {
        XCTAssertEqual(openTwiceAtOnce("history") { _ = try CheckHistory(path: $0) }, [])
    }

    /// The same for the upload journal.
    func testTwoOpenersOfANewJournalAtOnceBothSucceed() throws {
        XCTAssertEqual(openTwiceAtOnce("journal") { _ = try UploadJournal(path: $0) }, [])
    }

    /// Opens 40 new databases, each from two threads at once, and returns the failures.
    private func openTwiceAtOnce(_ name: String, _ open: @Sendable @escaping (String) throws -> Void) -> [String] {
        let directory = NSTemporaryDirectory() + "wirelens-\(name)-race-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let failures = Mutex<[String]>([])
        for round in 0..<40 {
            let path = "\(directory)/r\(round).sqlite"
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    try open(path)
                } catch {
                    failures.withLock { $0.append("round \(round): \(error)") }
                }
            }
        }
        return failures.withLock { $0 }
    }
}
