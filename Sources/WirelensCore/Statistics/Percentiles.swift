/// Distribution statistics of one metric: count, min, mean, p50, p90, p99 and max.
public struct PhaseStats: Sendable, Codable, Equatable {
    public var count: Int
    public var min: Double
    public var mean: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double

    /// Statistics given field by field.
    public init(count: Int, min: Double, mean: Double, p50: Double, p90: Double, p99: Double, max: Double) {
        self.count = count
        self.min = min
        self.mean = mean
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Statistics of `values`, or nil when there are none.
    ///
    /// Percentiles interpolate linearly between the closest ranks (numpy's default, "type 7").
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        self.init(sorted: sorted, count: sorted.count, sum: sorted.reduce(0, +))
    }

    /// Statistics of integer `values`, or nil when there are none; reorders `values`.
    ///
    /// The percentiles come from selection, not a full sort: each needs only the values at two adjacent ranks,
    /// and a large run has tens of thousands per phase. The results equal those of `init?(_:)`.
    public init?(micros values: inout [Int64]) {
        guard !values.isEmpty else { return nil }
        var sum = 0.0
        var low = Int64.max
        var high = Int64.min
        for v in values {
            sum += Double(v)
            low = Swift.min(low, v)
            high = Swift.max(high, v)
        }
        let count = values.count
        var quantiles = [0.0, 0.0, 0.0]
        values.withUnsafeMutableBufferPointer { buffer in
            // Ranks grow with q, and selecting rank r leaves every larger rank to its right: each search starts there.
            var from = 0
            for (i, q) in [0.50, 0.90, 0.99].enumerated() {
                let (lower, weight) = Self.position(of: q, count: count)
                if lower >= from { Self.select(lower, in: buffer, from: from) }
                from = lower + 1
                let below = Double(buffer[lower])
                let above = lower + 1 < count ? Double(buffer[(lower + 1)...].min() ?? buffer[lower]) : below
                quantiles[i] = below + (above - below) * weight
            }
        }
        self.count = count
        min = Double(low)
        max = Double(high)
        mean = sum / Double(count)
        p50 = quantiles[0]
        p90 = quantiles[1]
        p99 = quantiles[2]
    }

    /// Reorders `buffer[from...]` so that the value of rank `k` sits at index `k`, with none larger before it
    /// and none smaller after it (Hoare's selection, median-of-three pivots).
    static func select(_ k: Int, in buffer: UnsafeMutableBufferPointer<Int64>, from: Int) {
        var lo = from
        var hi = buffer.count - 1
        while hi > lo {
            let mid = lo + (hi - lo) / 2
            if buffer[mid] < buffer[lo] { buffer.swapAt(mid, lo) }
            if buffer[hi] < buffer[lo] { buffer.swapAt(hi, lo) }
            if buffer[hi] < buffer[mid] { buffer.swapAt(hi, mid) }
            let pivot = buffer[mid]
            var i = lo
            var j = hi
            while i <= j {
                while buffer[i] < pivot { i += 1 }
                while buffer[j] > pivot { j -= 1 }
                if i <= j {
                    buffer.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            // Now buffer[lo...j] <= pivot <= buffer[i...hi], and anything between equals the pivot.
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                return
            }
        }
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
        let (lower, weight) = position(of: q, count: sorted.count)
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }

    /// Where the `q`-quantile of `count` sorted values falls: the rank below it and the weight of the next rank.
    private static func position(of q: Double, count: Int) -> (lower: Int, weight: Double) {
        let rank = q * Double(count - 1)
        let lower = Int(rank.rounded(.down))
        return (lower, rank - Double(lower))
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
