/// The most intervals open at the same instant, computed as intervals arrive, in memory that does not grow
/// with their number.
///
/// Every interval adds +1 at its start and -1 at its end; the peak is the highest running sum over the events
/// in time order, closes first at equal times. Events before a `watermark` (a time no future event can
/// precede) are folded into the running sum and dropped, so only the events of the last stretch are kept.
struct ConcurrencyPeak {
    /// Each event as one sortable word: its time doubled, plus 1 for an open (so that at equal times closes sort
    /// first). Times are µs since the epoch, far inside the range this leaves (beyond ±2^61 they are clamped).
    private var events: [Int64] = []
    private var running = 0
    private var best = 0

    /// Events kept now (not yet folded).
    var heldEvents: Int { events.count }

    mutating func opened(at time: Int64) { events.append(Self.word(time) + 1) }

    mutating func closed(at time: Int64) { events.append(Self.word(time)) }

    private static func word(_ time: Int64) -> Int64 {
        let limit: Int64 = 1 << 61
        return min(max(time, -limit), limit) * 2
    }

    /// Folds every event before `watermark`: the caller promises no later event comes before it.
    mutating func fold(before watermark: Int64) {
        guard !events.isEmpty else { return }
        events.sort()
        var kept = 0
        while kept < events.count, events[kept] >> 1 < watermark {
            running += events[kept] & 1 == 1 ? 1 : -1
            best = max(best, running)
            kept += 1
        }
        events.removeFirst(kept)
    }

    /// The peak over every event so far.
    var peak: Int {
        var copy = self
        copy.fold(before: .max)
        // Events at Int64.max itself (none in practice) still count.
        for event in copy.events {
            copy.running += event & 1 == 1 ? 1 : -1
            copy.best = max(copy.best, copy.running)
        }
        return copy.best
    }
}
