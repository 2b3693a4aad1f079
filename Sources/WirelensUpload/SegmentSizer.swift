import WirelensCore

/// Chooses each segment's size: a fixed size, or (auto) a size worked out from the throughput measured so far.
///
/// In auto mode a first segment of `initial` bytes is sent alone to measure throughput; every later segment
/// is sized to take about `targetMicros` at the estimated rate of one segment stream, rounded to 64 KiB and
/// clamped to `bounds`. The estimate is re-made as segments complete (an exponentially weighted mean of their
/// rates), so a link that slows down gets smaller segments. Pure: the uploader feeds it what it measured.
package struct SegmentSizer: Sendable, Equatable {
    /// How segment sizes are chosen.
    package enum Mode: Sendable, Equatable {
        case fixed(Int64)
        case auto
    }

    package let mode: Mode
    /// The first segment's size in auto mode.
    package var initial: Int64
    /// The time one segment should take in auto mode, µs.
    package var targetMicros: Int64
    /// The smallest and largest segment in auto mode.
    package var bounds: ClosedRange<Int64>
    /// The estimated rate of one segment stream in bytes per second, once a segment completed.
    package private(set) var bytesPerSecond: Double?
    /// Weight of the newest measurement in the estimate.
    package static let smoothing = 0.5
    /// Sizes are multiples of this (except the file's last segment).
    package static let granule: Int64 = 64 << 10

    package init(mode: Mode, initial: Int64 = 1 << 20, targetMicros: Int64 = 3_000_000,
                bounds: ClosedRange<Int64> = (256 << 10)...(64 << 20)) {
        self.mode = mode
        self.initial = initial
        self.targetMicros = targetMicros
        self.bounds = bounds
    }

    /// True while auto mode waits for the first segment's measurement before sizing any other.
    package var awaitsMeasurement: Bool { mode == .auto && bytesPerSecond == nil }

    /// The size for the next new segment.
    package var nextSize: Int64 {
        switch mode {
        case .fixed(let size): return size
        case .auto:
            guard let rate = bytesPerSecond else { return initial }
            let ideal = rate * Double(targetMicros) / 1e6
            let rounded = (Int64(min(ideal, Double(bounds.upperBound))) / Self.granule) * Self.granule
            return min(max(rounded, bounds.lowerBound), bounds.upperBound)
        }
    }

    /// Takes in a successful segment: `length` bytes sent in `micros` µs.
    package mutating func observe(length: Int64, micros: Int64) {
        guard length > 0, micros > 0 else { return }
        let rate = Double(length) * 1e6 / Double(micros)
        if let old = bytesPerSecond {
            bytesPerSecond = old * (1 - Self.smoothing) + rate * Self.smoothing
        } else {
            bytesPerSecond = rate
        }
    }
}
