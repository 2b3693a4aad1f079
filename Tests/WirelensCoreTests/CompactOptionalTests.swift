import XCTest
@testable import WirelensCore

final class CompactOptionalTests: XCTestCase {
    func testKeepsValuesAndNilInTheIntegersOwnWidth() {
        var timeline = Timeline(fetchStart: 5)
        XCTAssertNil(timeline.connectStart)
        timeline.connectStart = 0
        timeline.connectEnd = -7
        XCTAssertEqual(timeline.connectStart, 0, "0 is a value, not nil")
        XCTAssertEqual(timeline.connectEnd, -7)
        timeline.connectStart = nil
        XCTAssertNil(timeline.connectStart)
        XCTAssertEqual(MemoryLayout<CompactOptional<Int64>>.size, 8)
        XCTAssertLessThan(MemoryLayout<Timeline>.size, 11 * MemoryLayout<Int64?>.stride, "smaller than optionals")
    }

    func testEqualityFollowsTheValues() {
        var a = Phases(queue: nil, send: 3, total: 10)
        let b = Phases(queue: nil, send: 3, total: 10)
        XCTAssertEqual(a, b)
        a.queue = 0
        XCTAssertNotEqual(a, b)
    }

    func testTheMinimumReadsBackAsNil() {
        let stored = CompactOptional<Int>(wrappedValue: Int.min)
        XCTAssertNil(stored.wrappedValue, "Int.min is the documented stand-in for nil")
        XCTAssertEqual(CompactOptional<Int>(wrappedValue: Int.max).wrappedValue, Int.max)
    }
}
