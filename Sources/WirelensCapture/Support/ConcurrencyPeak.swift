/// The most intervals open at the same instant, computed as intervals arrive, in memory that does not grow
/// with their number.
///
/// Every interval adds +1 at its start and -1 at its end; the peak is the highest running sum over the events
/// in time order, closes first at equal times. Events before a `watermark` (a time no future event can
/// precede) are folded into the running sum and dropped, so only the events of the last stretch are kept.
///
/// Opens and closes are kept apart: opens are noted in capture order, so they are nearly always in order
/// already, and a fold sorts only what is out of order, then walks the two lists side by side. One list of
/// both, sorted at each fold, cost a sort of interleaved runs (2% of a dense capture's analysis).
struct ConcurrencyPeak {
    /// Start times not folded yet (µs since the epoch), in the order noted.
    private var opens: [Int64] = []
    /// End times not folded yet, in the order noted.
    private var closes: [Int64] = []
    private var running = 0
    private var best = 0

    /// Events kept now (not yet folded).
    var heldEvents: Int { opens.count + closes.count }

    mutating func opened(at time: Int64) { opens.append(time) }

    mutating func closed(at time: Int64) { closes.append(time) }

    /// Folds every event before `watermark`: the caller promises no later event comes before it.
    mutating func fold(before watermark: Int64) {
        guard !opens.isEmpty || !closes.isEmpty else { return }
        Self.order(&opens)
        Self.order(&closes)
        var nextOpen = 0, nextClose = 0
        while true {
            let close = nextClose < closes.count ? closes[nextClose] : nil
            let open = nextOpen < opens.count ? opens[nextOpen] : nil
            // The earlier of the two first, a close at a tie.
            if let close, close < watermark, open.map({ close <= $0 }) ?? true {
                running -= 1
                nextClose += 1
            } else if let open, open < watermark {
                running += 1
                best = max(best, running)
                nextOpen += 1
            } else {
                break
            }
        }
        opens.removeFirst(nextOpen)
        closes.removeFirst(nextClose)
    }

    /// The peak over every event so far.
    var peak: Int {
        var copy = self
        copy.fold(before: .max)
        // Events at Int64.max itself (none in practice) still count: the closes first.
        copy.running -= copy.closes.count
        if !copy.opens.isEmpty { copy.best = max(copy.best, copy.running + copy.opens.count) }
        return copy.best
    }

    /// Sorts `times` unless they are in order already (the common case: a check, no sort).
    private static func order(_ times: inout [Int64]) {
        for i in times.indices.dropFirst() where times[i] < times[i - 1] {
            times.sort()
            return
        }
    }
}
