/// Counts of integers in log-spaced buckets: a quantile sketch whose size does not grow with the number of
/// values, and whose quantiles are within 1/256 (0.4 %) of the exact ones.
///
/// Values below 256 have a bucket each (exact). Above, each power of two is split into 128 buckets of equal
/// width, so a bucket is at most 1/128 of its lower bound wide and its midpoint is within 1/256 of any value in
/// it (HdrHistogram's layout with two significant decimal digits' worth of sub-buckets). Every Int64 fits in
/// 7296 buckets; they are allocated up to the largest value seen. Negative values are counted by their magnitude
/// in buckets of their own.
package struct LogHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two.
    static let subBuckets: Int64 = 128
    private static let subBits = 7

    private var counts: [Int] = []
    /// Negative values, by magnitude.
    private var negative: [Int] = []
    private var negativeCount = 0
    /// The number of values added.
    package private(set) var count = 0

    package init() {}

    /// The relative error bound of a quantile of values of one sign: `|estimate − exact| ≤ |exact| × relativeError`.
    package static let relativeError = 1.0 / 256

    /// Adds one value.
    package mutating func add(_ value: Int64) {
        count += 1
        if value < 0 {
            negativeCount += 1
            Self.increment(&negative, Self.bucket(of: Int64(clamping: value.magnitude)))
        } else {
            Self.increment(&counts, Self.bucket(of: value))
        }
    }

    private static func increment(_ counts: inout [Int], _ i: Int) {
        if i >= counts.count { counts.append(contentsOf: repeatElement(0, count: i + 1 - counts.count)) }
        counts[i] += 1
    }

    /// The bucket of a non-negative value.
    static func bucket(of value: Int64) -> Int {
        guard value >= 2 * subBuckets else { return Int(value) }
        let shift = (64 - value.leadingZeroBitCount) - (subBits + 1)
        return Int(2 * subBuckets) + (shift - 1) * Int(subBuckets) + Int((value >> shift) - subBuckets)
    }

    /// The midpoint of a bucket's values (the value itself below 256).
    static func midpoint(of bucket: Int) -> Double {
        guard bucket >= Int(2 * subBuckets) else { return Double(bucket) }
        let above = bucket - Int(2 * subBuckets)
        let shift = above / Int(subBuckets) + 1
        let low = (Int64(above % Int(subBuckets)) + subBuckets) << shift
        let width = Int64(1) << shift
        return Double(low) + Double(width - 1) / 2
    }

    /// The estimated value of rank `rank` (0-based, in ascending order), or nil past the last value.
    func value(atRank rank: Int) -> Double? {
        guard rank >= 0, rank < count else { return nil }
        if rank < negativeCount {
            // The negative values in ascending order are their magnitudes in descending order.
            return Self.midpoint(rank: negativeCount - 1 - rank, in: negative).map { -$0 }
        }
        return Self.midpoint(rank: rank - negativeCount, in: counts)
    }

    /// The midpoint of the bucket holding the value of `rank` in ascending order.
    private static func midpoint(rank: Int, in counts: [Int]) -> Double? {
        var seen = 0
        for i in counts.indices {
            seen += counts[i]
            if seen > rank { return midpoint(of: i) }
        }
        return nil
    }

    /// The estimated `q`-quantile (0...1), interpolated linearly between the closest ranks like
    /// `PhaseStats.percentile`; 0 when empty.
    package func quantile(_ q: Double) -> Double {
        guard count > 1 else { return value(atRank: 0) ?? 0 }
        let rank = q * Double(count - 1)
        let lower = Int(rank.rounded(.down))
        let below = value(atRank: lower) ?? 0
        let above = value(atRank: min(lower + 1, count - 1)) ?? below
        return below + (above - below) * (rank - Double(lower))
    }
}
