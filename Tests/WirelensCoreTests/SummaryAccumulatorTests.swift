import XCTest
import WirelensCore
import WirelensTestSupport

/// The summary gathered task by task: its percentiles against exact ones computed here from sorted values, and
/// what it holds as runs grow.
final class SummaryAccumulatorTests: XCTestCase {
    /// Durations spread over five decades (1 µs to 100 s, log-uniform), with a few exact repeats.
    private func durations(_ count: Int, seed: UInt64) -> [Int64] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { i in
            if i % 97 == 0 { return 250 }
            return Int64(pow(10, Double.random(in: 0...8, using: &generator)).rounded())
        }
    }

    /// The type-7 quantile of sorted values, written out here: rank q·(n−1), linear between its neighbours.
    private func exactQuantile(_ sorted: [Int64], _ q: Double) -> Double {
        let rank = q * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return Double(sorted[low]) + (Double(sorted[high]) - Double(sorted[low])) * (rank - Double(low))
    }

    func testSketchedPercentilesAreWithinTheStatedErrorOfExactOnes() throws {
        for (count, seed) in [(20_000, UInt64(1)), (100_003, 7), (250_000, 42)] {
            let values = durations(count, seed: seed)
            var accumulator = PhaseAccumulator(exactLimit: 1000)
            for v in values { accumulator.add(v) }
            XCTAssertTrue(accumulator.isEstimated)
            XCTAssertEqual(accumulator.retainedValues, 0, "past the limit no value is kept")
            let stats = try XCTUnwrap(accumulator.stats)
            let sorted = values.sorted()
            XCTAssertEqual(stats.count, count)
            XCTAssertEqual(stats.min, Double(sorted[0]))
            XCTAssertEqual(stats.max, Double(sorted[count - 1]))
            XCTAssertEqual(stats.mean, Double(values.reduce(0, +)) / Double(count), accuracy: 1e-6)
            for (q, estimate) in [(0.5, stats.p50), (0.9, stats.p90), (0.99, stats.p99)] {
                let exact = exactQuantile(sorted, q)
                XCTAssertLessThanOrEqual(abs(estimate - exact), exact * LogHistogram.relativeError + 1e-9,
                                         "q \(q) of \(count): \(estimate) against \(exact)")
            }
            for q in stride(from: 0.0, through: 1.0, by: 0.05) {
                let exact = exactQuantile(sorted, q)
                let histogram = values.reduce(into: LogHistogram()) { $0.add($1) }
                XCTAssertLessThanOrEqual(abs(histogram.quantile(q) - exact), exact * LogHistogram.relativeError + 1e-9,
                                         "q \(q) of \(count)")
            }
        }
    }

    func testSmallValuesAndNegativeOnesAreExactOrBounded() {
        var histogram = LogHistogram()
        let values: [Int64] = [-1_000_000, -300, -7, 0, 0, 3, 200, 255, 256, 1_000, 123_456_789]
        for v in values { histogram.add(v) }
        let sorted = values.sorted()
        for (rank, value) in sorted.enumerated() {
            let q = Double(rank) / Double(sorted.count - 1)
            XCTAssertLessThanOrEqual(abs(histogram.quantile(q) - Double(value)),
                                     abs(Double(value)) * LogHistogram.relativeError + 1e-9, "rank \(rank)")
            if abs(value) < 256 { XCTAssertEqual(histogram.quantile(q), Double(value), "below 256 µs: exact") }
        }
    }

    func testUpToTheLimitPercentilesAreExact() throws {
        let values = durations(5000, seed: 3)
        var accumulator = PhaseAccumulator(exactLimit: 5000)
        for v in values { accumulator.add(v) }
        XCTAssertFalse(accumulator.isEstimated)
        let stats = try XCTUnwrap(accumulator.stats)
        let sorted = values.sorted()
        XCTAssertEqual(stats.p50, exactQuantile(sorted, 0.5))
        XCTAssertEqual(stats.p90, exactQuantile(sorted, 0.9))
        XCTAssertEqual(stats.p99, exactQuantile(sorted, 0.99))
    }

    /// `tasks` one-transaction tasks, `concurrency` at a time on fresh connections (--no-reuse), 1 ms each with
    /// 0.5 ms between the waves, a status of 200 but every 10th 503.
    private func freshConnectionRun(tasks: Int, concurrency: Int) -> [TaskRecord] {
        let ms: Int64 = 1000
        return (0..<tasks).map { i in
            let start = Fixture.epoch + Int64(i / concurrency) * 3 * ms / 2
            let status = i % 10 == 9 ? 503 : 200
            let tx = Fixture.transaction(fetchStart: start, responseEnd: start + ms, reused: false, connectionId: i,
                                         localPort: 10_000 + i % 50_000, status: status)
            return Fixture.task(index: i, status: status,
                                error: status >= 400 ? Fixture.error(.http) : nil, transactions: [tx])
        }
    }

    func testHeldStateStaysBoundedWhateverTheRunLength() {
        var small = Summary.Accumulator(exactLimit: 1000, connectionLimit: 256)
        var large = Summary.Accumulator(exactLimit: 1000, connectionLimit: 256)
        for task in freshConnectionRun(tasks: 2_000, concurrency: 8) { small.add(task) }
        let run = freshConnectionRun(tasks: 60_000, concurrency: 8)
        for task in run { large.add(task) }
        XCTAssertLessThanOrEqual(large.retained.phaseValues, small.retained.phaseValues)
        XCTAssertLessThanOrEqual(large.retained.connectionSpans, 256)
        XCTAssertEqual(large.retained.mapKeys, small.retained.mapKeys)
        // The counts stay exact: every task opened its own connection, and 8 were open at once.
        let summary = large.summary
        XCTAssertEqual(summary.tasks, 60_000)
        XCTAssertEqual(summary.failed, 6_000)
        XCTAssertEqual(summary.statusCodes, ["200": 54_000, "503": 6_000])
        XCTAssertEqual(summary.connections.opened, 60_000)
        XCTAssertEqual(summary.connections.distinct, 60_000)
        XCTAssertEqual(summary.connections.maxOpenAtOnce, 8)
        XCTAssertEqual(summary.phases["total"]?.count, 60_000)
    }

    func testTasksInAnyOrderGiveTheSummaryOfTasksInOrder() {
        var generator = SplitMix64(seed: 9)
        let run = freshConnectionRun(tasks: 3_000, concurrency: 5)
        var accumulator = Summary.Accumulator()
        for task in run.shuffled(using: &generator) { accumulator.add(task) }
        XCTAssertEqual(accumulator.summary, Summary.build(tasks: run))
        XCTAssertNil(accumulator.failures.firstTransportError)
        XCTAssertTrue(accumulator.failures.sawHTTPError)
        XCTAssertEqual(accumulator.failures.first?.index, 9)
        XCTAssertEqual(accumulator.failures.count, 300)
    }

    func testTaskOrderPutsTasksBackInOrderAndLetsAFarLateOneGo() {
        let run = freshConnectionRun(tasks: 40, concurrency: 1)
        var order = TaskOrder(limit: 10)
        var released: [Int] = []
        // Ends in pairs swapped: 1, 0, 3, 2, ...
        for i in stride(from: 0, to: 20, by: 2) {
            order.add(run[i + 1]) { released.append($0.index) }
            order.add(run[i]) { released.append($0.index) }
        }
        XCTAssertEqual(released, Array(0..<20))
        XCTAssertEqual(order.waiting, 0)
        // Task 20 stalls while 21...39 end: at most 10 wait, then the order goes on without it.
        for i in 21..<40 { order.add(run[i]) { released.append($0.index) } }
        XCTAssertLessThanOrEqual(order.waiting, 10)
        order.add(run[20]) { released.append($0.index) }
        order.flush { released.append($0.index) }
        XCTAssertEqual(released.count, 40)
        XCTAssertEqual(Set(released), Set(0..<40))
        XCTAssertEqual(order.waiting, 0)
    }
}
