import XCTest
import WirelensCore

final class PercentilesTests: XCTestCase {
    func testOneToTenHandComputed() throws {
        // Unsorted input: the statistics must not depend on the order.
        let stats = try XCTUnwrap(PhaseStats([7, 3, 10, 1, 5, 9, 2, 8, 6, 4]))
        XCTAssertEqual(stats.count, 10)
        XCTAssertEqual(stats.min, 1)
        XCTAssertEqual(stats.max, 10)
        XCTAssertEqual(stats.mean, 5.5, accuracy: 1e-12)
        // rank = q * (n - 1): 4.5 → 5 + 0.5; 8.1 → 9 + 0.1; 8.91 → 9 + 0.91
        XCTAssertEqual(stats.p50, 5.5, accuracy: 1e-12)
        XCTAssertEqual(stats.p90, 9.1, accuracy: 1e-12)
        XCTAssertEqual(stats.p99, 9.91, accuracy: 1e-12)
    }

    func testUnevenGapsInterpolateWithinTheirInterval() throws {
        let stats = try XCTUnwrap(PhaseStats([80, 10, 40, 20]))
        // rank 1.5 → 20 + 0.5 * 20; rank 2.7 → 40 + 0.7 * 40; rank 2.97 → 40 + 0.97 * 40
        XCTAssertEqual(stats.p50, 30, accuracy: 1e-9)
        XCTAssertEqual(stats.p90, 68, accuracy: 1e-9)
        XCTAssertEqual(stats.p99, 78.8, accuracy: 1e-9)
        XCTAssertEqual(stats.mean, 37.5, accuracy: 1e-12)
    }

    func testOddCountMedianIsTheMiddleValue() throws {
        let stats = try XCTUnwrap(PhaseStats([300, 100, 200]))
        XCTAssertEqual(stats.p50, 200)
        XCTAssertEqual(stats.p90, 280, accuracy: 1e-9)
    }

    func testTwoValues() throws {
        let stats = try XCTUnwrap(PhaseStats([100, 0]))
        XCTAssertEqual(stats.p50, 50, accuracy: 1e-9)
        XCTAssertEqual(stats.p90, 90, accuracy: 1e-9)
        XCTAssertEqual(stats.p99, 99, accuracy: 1e-9)
    }

    func testSingleValue() throws {
        let stats = try XCTUnwrap(PhaseStats([42.5]))
        XCTAssertEqual(stats.count, 1)
        for value in [stats.min, stats.mean, stats.p50, stats.p90, stats.p99, stats.max] {
            XCTAssertEqual(value, 42.5)
        }
    }

    func testEmptyIsNil() {
        XCTAssertNil(PhaseStats([]))
    }

    func testPercentileEndpoints() {
        let sorted: [Double] = [2, 4, 8, 16]
        XCTAssertEqual(PhaseStats.percentile(sorted, 0), 2)
        XCTAssertEqual(PhaseStats.percentile(sorted, 1), 16)
        XCTAssertEqual(PhaseStats.percentile(sorted, 0.5), 6, accuracy: 1e-12)
    }

    func testPercentilesAreMonotoneInQ() {
        let sorted = (0..<37).map { Double(($0 * 7919) % 101) }.sorted()
        var last = -Double.infinity
        for step in 0...100 {
            let value = PhaseStats.percentile(sorted, Double(step) / 100)
            XCTAssertGreaterThanOrEqual(value, last, "q = \(step)%")
            XCTAssertGreaterThanOrEqual(value, sorted.first!)
            XCTAssertLessThanOrEqual(value, sorted.last!)
            last = value
        }
    }

    func testScaledDividesEveryStatisticButCount() throws {
        let stats = try XCTUnwrap(PhaseStats([1_000, 2_000, 3_000, 4_000])).scaled(by: 1000)
        XCTAssertEqual(stats.count, 4)
        XCTAssertEqual(stats.min, 1)
        XCTAssertEqual(stats.max, 4)
        XCTAssertEqual(stats.mean, 2.5, accuracy: 1e-12)
        XCTAssertEqual(stats.p50, 2.5, accuracy: 1e-12)
        XCTAssertEqual(stats.p90, 3.7, accuracy: 1e-12)
        XCTAssertEqual(stats.p99, 3.97, accuracy: 1e-12)
    }

    func testSelectionOnIntegersMatchesTheSortedStatistics() throws {
        // Sizes around the ranks' edges, heavy duplicates (timings repeat), sorted and reversed input.
        var generator = SystemRandomNumberGenerator()
        var inputs: [[Int64]] = [[5], [9, 1], [3, 3, 3], Array(0..<1000), Array((0..<1000).reversed())]
        for size in [2, 3, 4, 10, 99, 100, 101, 257, 2048] {
            inputs.append((0..<size).map { _ in Int64.random(in: 0..<20, using: &generator) })
            inputs.append((0..<size).map { _ in Int64.random(in: -5_000_000...5_000_000, using: &generator) })
        }
        for input in inputs {
            var values = input
            let selected = try XCTUnwrap(PhaseStats(micros: &values))
            let sorted = try XCTUnwrap(PhaseStats(input.map(Double.init)))
            XCTAssertEqual(selected.count, sorted.count)
            XCTAssertEqual(selected.min, sorted.min)
            XCTAssertEqual(selected.max, sorted.max)
            XCTAssertEqual(selected.mean, sorted.mean, accuracy: 1e-6)
            XCTAssertEqual(selected.p50, sorted.p50, accuracy: 1e-9, "p50 of \(input.count) values")
            XCTAssertEqual(selected.p90, sorted.p90, accuracy: 1e-9, "p90 of \(input.count) values")
            XCTAssertEqual(selected.p99, sorted.p99, accuracy: 1e-9, "p99 of \(input.count) values")
            XCTAssertEqual(values.sorted(), input.sorted(), "selection only reorders")
        }
    }
}
