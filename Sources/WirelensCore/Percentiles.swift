/// Distribution statistics of one metric: count, min, mean, p50, p90, p99 and max.
public struct PhaseStats: Sendable, Codable, Equatable {
    public var count: Int
    public var min: Double
    public var mean: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double

    /// Statistics of `values`, or nil when there are none.
    ///
    /// Percentiles interpolate linearly between the closest ranks (numpy's default, "type 7").
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        self.init(sorted: sorted, count: sorted.count, sum: sorted.reduce(0, +))
    }

    /// Statistics of integer `values` (sorted in place), or nil when there are none.
    public init?(micros values: inout [Int64]) {
        guard !values.isEmpty else { return nil }
        values.sort()
        var sum = 0.0
        for v in values { sum += Double(v) }
        self.init(sorted: values.lazy.map(Double.init), count: values.count, sum: sum)
    }

    private init<C: RandomAccessCollection>(sorted: C, count: Int, sum: Double) where C.Element == Double, C.Index == Int {
        self.count = count
        min = sorted[0]
        max = sorted[count - 1]
        mean = sum / Double(count)
        p50 = Self.percentile(sorted, 0.50)
        p90 = Self.percentile(sorted, 0.90)
        p99 = Self.percentile(sorted, 0.99)
    }

    /// The `q`-quantile (0...1) of already sorted values, interpolated linearly.
    public static func percentile<C: RandomAccessCollection>(_ sorted: C, _ q: Double) -> Double
        where C.Element == Double, C.Index == Int {
        guard sorted.count > 1 else { return sorted.first ?? 0 }
        let rank = q * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let weight = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }

    /// The same statistics with every value divided by `divisor` (µs to ms, for example).
    public func scaled(by divisor: Double) -> PhaseStats {
        var copy = self
        copy.min /= divisor
        copy.mean /= divisor
        copy.p50 /= divisor
        copy.p90 /= divisor
        copy.p99 /= divisor
        copy.max /= divisor
        return copy
    }
}
