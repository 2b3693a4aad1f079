import XCTest
import WirelensCore

/// The engine's per-connection memory: bounded, and keeping what is used.
final class RecentTableTests: XCTestCase {
    func testKeepsWhatIsUsedAndDropsWhatIsNotWithinTwoGenerations() {
        var table = RecentTable<Int, String>(limit: 100)
        table[0] = "kept alive"
        for id in 1...10_000 {
            table[id] = "connection \(id)"
            if id % 50 == 0 { XCTAssertEqual(table[0], "kept alive", "read every 50 stores: never dropped") }
            XCTAssertLessThanOrEqual(table.count, 200)
        }
        XCTAssertNil(table[1], "unused for 9999 stores: dropped")
        XCTAssertEqual(table[10_000], "connection 10000")
        table[10_000] = nil
        XCTAssertNil(table[10_000])
    }
}
