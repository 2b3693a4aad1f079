import WirelensCore

/// A classic Prometheus histogram of durations: counts per bucket (upper bounds in µs, `le`), their sum and count.
package struct Histogram: Sendable, Equatable {
    /// The buckets' upper bounds in µs, increasing; `+Inf` is implied.
    package let bounds: [Int64]
    /// Observations per bucket, not cumulative; the last slot is above every bound.
    private var counts: [UInt64]
    /// The sum of the observations, µs.
    package private(set) var sum: Int64 = 0
    package private(set) var count: UInt64 = 0

    /// The default buckets: 1 ms to 60 s, about three per decade (Prometheus' 1-2.5-5 steps, then 30 s and 60 s).
    package static let defaultBounds: [Int64] = [
        1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_500_000, 5_000_000, 10_000_000, 30_000_000, 60_000_000,
    ]
    /// The most buckets a histogram may have (each is a series per check and phase).
    package static let maxBuckets = 40

    /// An empty histogram with these bounds (increasing, positive; the configuration checks them).
    package init(bounds: [Int64]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts one duration (µs).
    package mutating func observe(_ micros: Int64) {
        var slot = bounds.count
        // Few bounds: a linear search beats a binary one here.
        for (index, bound) in bounds.enumerated() where micros <= bound {
            slot = index
            break
        }
        counts[slot] += 1
        sum += micros
        count += 1
    }

    /// The cumulative count of each bucket with its `le` text, `+Inf` last.
    package var cumulative: [(le: String, count: UInt64)] {
        var running: UInt64 = 0
        var out: [(String, UInt64)] = []
        out.reserveCapacity(counts.count)
        for (index, bound) in bounds.enumerated() {
            running += counts[index]
            out.append((Self.seconds(bound), running))
        }
        out.append(("+Inf", count))
        return out
    }

    /// µs as the shortest decimal seconds (`0.001`, `0.25`, `60`), for `le`.
    static func seconds(_ micros: Int64) -> String {
        var text = Format.fixed(Double(micros) / 1e6, digits: 6)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
