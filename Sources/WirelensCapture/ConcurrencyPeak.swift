/// The most intervals open at the same instant, computed as intervals arrive, in memory that does not grow
/// with their number.
///
/// Every interval adds +1 at its start and -1 at its end; the peak is the highest running sum over the events
/// in time order, closes first at equal times. Events before a `watermark` (a time no future event can
/// precede) are folded into the running sum and dropped, so only the events of the last stretch are kept.
struct ConcurrencyPeak {
    private var events: [(time: Int64, delta: Int8)] = []
    private var running = 0
    private var best = 0

    /// Events kept now (not yet folded).
    var heldEvents: Int { events.count }

    mutating func opened(at time: Int64) { events.append((time, 1)) }

    mutating func closed(at time: Int64) { events.append((time, -1)) }

    /// Folds every event before `watermark`: the caller promises no later event comes before it.
    mutating func fold(before watermark: Int64) {
        guard !events.isEmpty else { return }
        events.sort { ($0.time, $0.delta) < ($1.time, $1.delta) }
        var kept = 0
        while kept < events.count, events[kept].time < watermark {
            running += Int(events[kept].delta)
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
            copy.running += Int(event.delta)
            copy.best = max(copy.best, copy.running)
        }
        return copy.best
    }
}
