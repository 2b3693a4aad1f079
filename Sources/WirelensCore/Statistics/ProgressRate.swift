/// The recent rate of a growing byte count: samples of (time, bytes) kept over a sliding window.
package struct ProgressRate: Sendable, Equatable {
    /// How far back samples count, µs.
    package let windowMicros: Int64
    private var samples: [(time: Int64, bytes: Int64)] = []

    package init(windowMicros: Int64 = 3_000_000) {
        self.windowMicros = windowMicros
    }

    /// Adds a sample and returns the rate in bytes per second over the window, or nil before two samples
    /// at least 200 ms apart.
    package mutating func add(time: Int64, bytes: Int64) -> Double? {
        samples.append((time, bytes))
        while samples.count > 2, time - samples[1].time >= windowMicros { samples.removeFirst() }
        guard let first = samples.first, time - first.time >= 200_000 else { return nil }
        return Double(max(0, bytes - first.bytes)) * 1e6 / Double(time - first.time)
    }

    package static func == (lhs: ProgressRate, rhs: ProgressRate) -> Bool {
        lhs.windowMicros == rhs.windowMicros && lhs.samples.map(\.time) == rhs.samples.map(\.time)
            && lhs.samples.map(\.bytes) == rhs.samples.map(\.bytes)
    }
}
