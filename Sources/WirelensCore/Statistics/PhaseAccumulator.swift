/// Gathers one metric's values (µs) for `PhaseStats` in bounded memory: every value while there are at most
/// `exactLimit` (exact percentiles), a `LogHistogram` beyond (percentiles within `LogHistogram.relativeError`).
///
/// Count, min, max and mean are exact either way.
package struct PhaseAccumulator: Sendable {
    /// Values kept exactly before the histogram takes over.
    package let exactLimit: Int
    private var exact: [Int64] = []
    private var histogram: LogHistogram?
    private var count = 0
    private var sum = 0.0
    private var low = Int64.max
    private var high = Int64.min

    package init(exactLimit: Int = PhaseAccumulator.defaultExactLimit) {
        self.exactLimit = exactLimit
    }

    /// Values kept exactly by default: 16 384 (128 KiB per metric).
    package static let defaultExactLimit = 16_384

    /// Whether the percentiles are estimates (more than `exactLimit` values were added).
    package var isEstimated: Bool { histogram != nil }

    /// The values held: at most `exactLimit`, whatever the number added.
    package var retainedValues: Int { exact.count }

    /// Adds one value.
    package mutating func add(_ value: Int64) {
        count += 1
        sum += Double(value)
        low = min(low, value)
        high = max(high, value)
        if histogram != nil {
            histogram?.add(value)
        } else if exact.count < exactLimit {
            exact.append(value)
        } else {
            var sketch = LogHistogram()
            for v in exact { sketch.add(v) }
            sketch.add(value)
            histogram = sketch
            exact = []
        }
    }

    /// The statistics of the values added (µs), or nil when there are none.
    package var stats: PhaseStats? {
        guard count > 0 else { return nil }
        guard let histogram else {
            var values = exact
            return PhaseStats(micros: &values)
        }
        let bounds = Double(low)...Double(high)
        func clamped(_ q: Double) -> Double { min(max(histogram.quantile(q), bounds.lowerBound), bounds.upperBound) }
        return PhaseStats(count: count, min: Double(low), mean: sum / Double(count),
                          p50: clamped(0.50), p90: clamped(0.90), p99: clamped(0.99), max: Double(high))
    }
}
