import WirelensCore

/// One transaction's phases laid out on a fixed-width time axis, as columns of a text waterfall.
struct Waterfall: Sendable, Equatable {
    /// The number of columns of the time axis.
    static let defaultWidth = 40

    /// One phase of the waterfall.
    struct Row: Sendable, Equatable {
        var phase: WaterfallPhase
        /// The duration in µs; nil when the phase did not happen.
        var duration: Int64?
        /// The columns the bar covers; nil when the phase did not happen.
        var columns: Range<Int>?
        /// True when the bar is narrower than one column and is drawn as a sliver.
        var sliver: Bool
        /// The column at which a phase that began but never finished began (a failed transaction).
        var unfinishedAt: Int?
    }

    var width: Int
    /// The µs that the full width stands for: the transaction's total (or more, if the phases overrun it).
    var scale: Int64
    var rows: [Row]

    /// Lays out `metrics` on `width` columns.
    init(_ metrics: TransactionMetrics, width: Int = Waterfall.defaultWidth) {
        let phases = metrics.phases
        let timeline = metrics.timeline
        // Start offsets from the timeline; a phase without a recorded start follows the previous one.
        var placed: [(WaterfallPhase, offset: Int64?, duration: Int64?)] = []
        var cursor: Int64 = 0
        for phase in WaterfallPhase.allCases {
            let recorded = phase.start(in: timeline).map { max(0, $0 - timeline.fetchStart) }
            let duration = phase.duration(in: phases).map { max(0, $0) }
            if let duration {
                let offset = recorded ?? cursor
                placed.append((phase, offset, duration))
                cursor = offset + duration
            } else {
                placed.append((phase, recorded, nil))
            }
        }
        let reach = placed.compactMap { _, offset, duration in
            offset.flatMap { start in duration.map { start + $0 } }
        }.max() ?? 0
        let scale = max(phases.total, reach, 1)
        self.width = width
        self.scale = scale
        rows = placed.map { phase, offset, duration in
            guard let duration, let offset else {
                let unfinished = offset.map { Waterfall.column(of: $0, scale: scale, width: width) }
                return Row(phase: phase, duration: nil, columns: nil, sliver: false, unfinishedAt: unfinished)
            }
            let layout = Waterfall.columns(offset: offset, duration: duration, scale: scale, width: width)
            return Row(phase: phase, duration: duration, columns: layout.columns, sliver: layout.sliver,
                       unfinishedAt: nil)
        }
    }

    /// The column in which an instant `offset` µs after the start falls.
    static func column(of offset: Int64, scale: Int64, width: Int) -> Int {
        guard scale > 0, width > 0 else { return 0 }
        return Int(min(max(0, offset), scale) * Int64(width) / scale).clamped(to: 0...(width - 1))
    }

    /// The columns of a bar starting `offset` µs after the start and lasting `duration` µs, at least one wide;
    /// `sliver` is true when the bar is shorter than half a column.
    static func columns(offset: Int64, duration: Int64, scale: Int64, width: Int) -> (columns: Range<Int>, sliver: Bool) {
        let start = column(of: offset, scale: scale, width: width)
        let scaledEnd = (Double(offset + duration) * Double(width) / Double(max(scale, 1))).rounded()
        let end = Int(min(scaledEnd, Double(width))).clamped(to: (start + 1)...width)
        let sliver = Double(duration) * Double(width) / Double(max(scale, 1)) < 0.5
        return (start..<(sliver ? start + 1 : end), sliver)
    }
}

private extension Int {
    /// The value limited to `range`.
    func clamped(to range: ClosedRange<Int>) -> Int {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
