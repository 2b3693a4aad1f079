import WirelensCore
@testable import WirelensReport
import XCTest

final class WaterfallTests: XCTestCase {
    func testBarsFollowEachOtherAndSpanTheWidth() {
        let tx = Fixtures.transaction(start: Fixtures.epoch, queue: 0, dns: 10_000, connect: 10_000, tls: 20_000,
                                      send: 20_000, wait: 30_000, receive: 10_000)
        let waterfall = Waterfall(tx, width: 40)
        XCTAssertEqual(waterfall.scale, 100_000)
        let columns = waterfall.rows.map(\.columns)
        XCTAssertEqual(columns, [0..<1, 0..<4, 4..<8, 8..<16, 16..<24, 24..<36, 36..<40])
        XCTAssertTrue(waterfall.rows[0].sliver, "a zero-length queue wait is a sliver, not nothing")
    }

    func testNilPhasesHaveNoColumns() {
        let tx = Fixtures.transaction(start: Fixtures.epoch, queue: 100, send: 500, wait: 1_000, receive: 400,
                                      reused: true)
        let rows = Waterfall(tx).rows
        XCTAssertEqual(rows.map(\.phase), WaterfallPhase.allCases)
        for row in rows where [.dns, .connect, .tls].contains(row.phase) {
            XCTAssertNil(row.duration)
            XCTAssertNil(row.columns)
            XCTAssertNil(row.unfinishedAt)
        }
        XCTAssertEqual(rows.last?.columns?.upperBound, Waterfall.defaultWidth)
    }

    func testColumnsStayInsideTheAxis() {
        let cases: [(Int64, Int64, Int64)] = [(0, 0, 1), (0, 1, 1_000_000), (999_999, 1, 1_000_000), (500, 10_000, 1_000),
                                              (0, 1_000, 1_000)]
        for (offset, duration, scale) in cases {
            let layout = Waterfall.columns(offset: offset, duration: duration, scale: scale, width: 40)
            XCTAssertGreaterThanOrEqual(layout.columns.lowerBound, 0)
            XCTAssertLessThanOrEqual(layout.columns.upperBound, 40)
            XCTAssertFalse(layout.columns.isEmpty)
        }
    }

    func testLayoutHelpers() {
        XCTAssertEqual(TextLayout.padLeft("5µs", 6), "   5µs")
        XCTAssertEqual(TextLayout.padRight("—", 3), "—  ")
        XCTAssertEqual(TextLayout.wrap("aa bb cc dd", width: 8, firstPrefix: "- ", restPrefix: "  "),
                       ["- aa bb", "  cc dd"])
        XCTAssertEqual(TextLayout.fill(["200 (1)", "404 (2)", "503 (3)"], separator: ", ", width: 18,
                                       firstPrefix: "> ", restPrefix: "  "),
                       ["> 200 (1),", "  404 (2), 503 (3)"])
        XCTAssertEqual(ReportText.millis(0.0123), "0.012")
        XCTAssertEqual(ReportText.millis(123.456), "123.46")
        XCTAssertEqual(ReportText.millis(12_345.67), "12345.7")
        XCTAssertEqual(ReportText.endpoint("::1", 8080), "[::1]:8080")
    }

    /// The text report's MPTCP line names each subflow's own verdict (two subflows), and none with one.
    func testTheMPTCPLineNamesEachSubflowsVerdict() throws {
        var tx = try XCTUnwrap(Fixtures.redirectTask(multipath: Fixtures.multipath).transactions.first)
        XCTAssertEqual(ReportText.multipath(tx), "2 subflows: 198.18.1.1:40001 → 198.18.2.1:8080 67% of the body, rtt "
                       + "12.1ms, network; [2001:db8::1]:40002 → [2001:db8::2]:8080 33% of the body, rtt 20.5ms, server-send")
        tx.mptcp?.subflows.removeLast()
        tx.mptcp?.subflows[0].verdict = nil
        XCTAssertEqual(ReportText.multipath(tx), "1 subflow: 198.18.1.1:40001 → 198.18.2.1:8080 67% of the body, rtt 12.1ms")
    }
}
