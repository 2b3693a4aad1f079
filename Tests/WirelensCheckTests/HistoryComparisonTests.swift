import Foundation
import WirelensCheck
import WirelensCore
import WirelensStore
import XCTest

/// Regression detection over recorded history: stored in SQLite, read back, compared window against window.
final class HistoryComparisonTests: XCTestCase {
    private let hour: Int64 = 3_600_000_000
    private let end: Int64 = 1_800_000_000_000_000

    /// `count` runs of a check spread over the hour before `windowEnd`, with the given phase values in ms.
    private func runs(_ check: String, count: Int, before windowEnd: Int64, totalMs: [Double], dnsMs: Double? = 2,
                      failures: Int = 0) -> [HistoryEntry] {
        (0..<count).map { i in
            var entry = HistoryEntry(check: check, startedAt: windowEnd - hour + Int64(i) * (hour / Int64(count)) + 1,
                                     passed: i >= failures, statusCode: i >= failures ? 200 : 503)
            entry.total = Int64(totalMs[i % totalMs.count] * 1000)
            entry.dns = dnsMs.map { Int64($0 * 1000) }
            entry.ttfb = entry.total.map { $0 / 2 }
            return entry
        }
    }

    private func recorded(_ entries: [HistoryEntry]) throws -> [HistoryEntry] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString).sqlite").path
        defer { CheckCommandTests.removeDatabase(path) }
        let history = try CheckHistory(path: path)
        try history.append(entries)
        return try history.entries(since: end - 2 * hour)
    }

    func testSlowerTotalIsARegressionAndSteadyDNSIsNot() throws {
        let entries = try recorded(
            runs("api", count: 10, before: end - hour, totalMs: [100, 110, 90, 105, 95])
                + runs("api", count: 10, before: end, totalMs: [210, 190, 250, 200, 220])
                + runs("steady", count: 10, before: end - hour, totalMs: [50, 52, 48])
                + runs("steady", count: 10, before: end, totalMs: [51, 53, 47])
                + runs("old", count: 5, before: end - 3 * hour, totalMs: [1]))
        let comparison = HistoryComparison.compare(entries, end: end, window: hour)
        XCTAssertEqual(comparison.checks.map(\.check), ["api", "steady"], "runs older than two windows are left out")
        let api = comparison.checks[0]
        XCTAssertEqual(api.currentRuns, 10)
        XCTAssertEqual(api.previousRuns, 10)
        let total = try XCTUnwrap(api.phases.first { $0.phase == "total" })
        XCTAssertTrue(total.regressed)
        XCTAssertEqual(try XCTUnwrap(total.current?.p50), 210, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(total.previous?.p50), 100, accuracy: 0.001)
        XCTAssertFalse(try XCTUnwrap(api.phases.first { $0.phase == "dns" }).regressed)
        XCTAssertTrue(api.regressed)
        XCTAssertFalse(comparison.checks[1].regressed, "\(comparison.checks[1])")
        XCTAssertNil(api.phases.first { $0.phase == "tls" }, "a phase that never happened has no row")

        let text = comparison.render()
        XCTAssertTrue(text.contains("api: 10 runs (0 failed) against 10 (0 failed)"), text)
        let totalLine = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("  total") && $0.contains("210.0") }, text)
        XCTAssertTrue(totalLine.hasSuffix("REGRESSION"), String(totalLine))

        let onlySteady = HistoryComparison.compare(entries, check: "steady", end: end, window: hour)
        XCTAssertEqual(onlySteady.checks.map(\.check), ["steady"])
    }

    /// `history` without a check name compares every check reading one check's runs at a time (the history may hold
    /// millions of runs): the same rows, in name order, as the figures the runs were made with.
    func testEveryCheckIsComparedOneCheckAtATime() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString).sqlite").path
        defer { CheckCommandTests.removeDatabase(path) }
        let history = try CheckHistory(path: path)
        try history.append(
            runs("steady", count: 10, before: end - hour, totalMs: [50, 52, 48])
                + runs("steady", count: 10, before: end, totalMs: [51, 53, 47])
                + runs("api", count: 10, before: end - hour, totalMs: [100, 110, 90, 105, 95])
                + runs("api", count: 10, before: end, totalMs: [210, 190, 250, 200, 220])
                + runs("old", count: 5, before: end - 3 * hour, totalMs: [1]))
        var asked: [String] = []
        let comparison = try HistoryComparison.compare(checks: history.checkNames(), end: end, window: hour) { name in
            asked.append(name)
            let entries = try history.entries(check: name, since: end - 2 * hour)
            XCTAssertTrue(entries.allSatisfy { $0.check == name }, "only \(name)'s runs")
            return entries
        }
        XCTAssertEqual(asked, ["api", "old", "steady"])
        XCTAssertEqual(comparison.checks.map(\.check), ["api", "steady"], "runs older than two windows are left out")
        XCTAssertEqual(comparison.checks.map(\.currentRuns), [10, 10])
        XCTAssertEqual(comparison.checks.map(\.previousRuns), [10, 10])
        let total = try XCTUnwrap(comparison.checks[0].phases.first { $0.phase == "total" })
        XCTAssertEqual(try XCTUnwrap(total.current?.p50), 210, accuracy: 0.001)
        XCTAssertEqual(try XCTUnwrap(total.previous?.p50), 100, accuracy: 0.001)
        XCTAssertTrue(total.regressed)
        XCTAssertFalse(comparison.checks[1].regressed, "\(comparison.checks[1])")
    }

    func testSmallGrowthOrFewRunsAreNotRegressions() throws {
        // Doubling from 1 ms to 2 ms is under the 5 ms floor; 2 runs are under the minimum of 3.
        let entries = try recorded(
            runs("tiny", count: 10, before: end - hour, totalMs: [1])
                + runs("tiny", count: 10, before: end, totalMs: [2])
                + runs("rare", count: 2, before: end - hour, totalMs: [10])
                + runs("rare", count: 2, before: end, totalMs: [1000]))
        let comparison = HistoryComparison.compare(entries, end: end, window: hour)
        XCTAssertEqual(comparison.checks.map(\.check), ["rare", "tiny"])
        XCTAssertFalse(comparison.checks[0].regressed)
        XCTAssertFalse(comparison.checks[1].regressed)
    }

    func testMoreFailuresIsARegression() throws {
        let entries = try recorded(
            runs("flaky", count: 10, before: end - hour, totalMs: [10], failures: 0)
                + runs("flaky", count: 10, before: end, totalMs: [10], failures: 4))
        let row = try XCTUnwrap(HistoryComparison.compare(entries, end: end, window: hour).checks.first)
        XCTAssertEqual(row.currentFailures, 4)
        XCTAssertTrue(row.failureRateRose)
        XCTAssertTrue(row.regressed)
    }

    func testRegressionRule() throws {
        let rule = HistoryComparison.Rule()
        let before = try XCTUnwrap(PhaseStats([10, 10, 10, 10]))
        XCTAssertTrue(rule.regressed(current: try XCTUnwrap(PhaseStats([15, 15, 15, 15])), previous: before))
        XCTAssertFalse(rule.regressed(current: try XCTUnwrap(PhaseStats([14.9, 14.9, 14.9, 14.9])), previous: before))
        XCTAssertFalse(rule.regressed(current: try XCTUnwrap(PhaseStats([5, 5, 5, 5])), previous: before), "faster")
        // p90 alone: one slow run in ten moves p90, not p50.
        let tail = try XCTUnwrap(PhaseStats([10, 10, 10, 10, 10, 10, 10, 10, 10, 100]))
        XCTAssertTrue(rule.regressed(current: tail, previous: try XCTUnwrap(PhaseStats(Array(repeating: 10, count: 10)))))
    }

    func testScheduleJitterStaysWithinBounds() {
        let schedule = Schedule(interval: 60_000_000, jitter: 0.1)
        XCTAssertEqual(schedule.delay(random: 0), 54_000_000)
        XCTAssertEqual(schedule.delay(random: 0.5), 60_000_000)
        XCTAssertEqual(schedule.delay(random: 0.999_999), 65_999_988, accuracy: 1)
        for _ in 0..<100 {
            XCTAssertTrue((54_000_000...66_000_000).contains(schedule.nextDelay()))
        }
    }
}

extension HistoryComparisonTests {
    func testWindowIsShownAsSinceTakesIt() {
        XCTAssertTrue(HistoryComparison.compare([], end: end, window: 24 * hour).render().hasPrefix("window: the last 24h against the 24h before\n"))
        XCTAssertTrue(HistoryComparison.compare([], end: end, window: 90 * 60_000_000).render().contains("last 90m"))
        XCTAssertTrue(HistoryComparison.compare([], end: end, window: 1_500_000).render().contains("last 1.50s"))
    }
}
