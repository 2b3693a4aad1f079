/// How sure a verdict is, from its own evidence: a number from 0 (a tie, or the deciding figure right at its rule's
/// threshold) to 1 (clear). Only the number is kept; `DiagnosisBasis` says in words what it rests on.
///
/// - an upload's shares (`server-window`, `send-buffer`, `network`, `client`): the leading share less the next; a
///   window-bound `server-window` (`isWindowBound`): how near the body's rate came to `windowCap`;
/// - `server-think`: how far the server's own share of the total passed a half (1 at all of it);
/// - `round-trips`: how far the handshakes and round trips passed a half of the total;
/// - a download's `client`: how far the larger of the write share and the full-queue share passed `clientShare`;
///   `client-window`: how far the window's fill passed `windowFillFloor` (1 at a full window); `network`: 1 with
///   out-of-order arrivals, else how far the queue passed `queueFactor` (1 at twice that); `server-send`: how far
///   below `windowFillFloor` the fill stayed (1 at an idle window), or for a window still growing how far its median
///   stayed below `plateauShare` of its largest.
/// - `client-cpu`: how far the loop thread's time on and waiting for a CPU passed `HostFacts.boundShare`;
/// - `h2-window`: how far the share of samples with every TCP limit open passed `h2StarvedShare`.
/// `unknown` gets none: its `reason` names the missing fact.
extension Diagnosis {
    /// `d` with its confidence.
    static func rated(_ d: Diagnosis, _ input: Input) -> Diagnosis {
        var d = d
        let e = d.evidence
        let download = e.direction == "download"
        switch d.verdict {
        case .unknown:
            return d
        case .serverThink:
            d.evidence.confidence = past(thinkShare(input, download: download), 0.5, full: 1)
        case .roundTrips:
            let spent = (e.handshakes ?? 0) + (e.movingTime ?? 0) + (download ? requestTrip(input) : 0)
            d.evidence.confidence = past(share(spent, of: max(input.phases.total, 1)), 0.5, full: 1)
        case .clientWindow:
            d.evidence.confidence = past(e.windowFill ?? 0, windowFillFloor, full: 1)
        case .serverSend:
            if let median = e.receiveWindow, let largest = e.receiveWindowMax, largest > 0, !windowHeld(e) {
                d.evidence.confidence = (plateauShare - Double(median) / Double(largest)) / plateauShare
            } else {
                d.evidence.confidence = min(1, max(0, (windowFillFloor - (e.windowFill ?? 0)) / windowFillFloor))
            }
        case .client where download:
            d.evidence.confidence = past(max(e.writeShare ?? 0, e.receiveQueueShare ?? 0), clientShare, full: 1)
        case .network where download:
            if let outOfOrder = e.outOfOrderPacketsIn, outOfOrder > 0 {
                d.evidence.confidence = 1
            } else if let ratio = queueRatio(e) {
                d.evidence.confidence = past(ratio, queueFactor, full: 2 * queueFactor)
            }
        case .serverWindow, .sendBuffer, .network, .client:
            let (lead, next) = leadingShares(d.verdict, e)
            if d.verdict == .serverWindow, let next, next.share > lead, let rate = e.bodyRate, let cap = e.windowCap,
               cap > 0 {
                // Window-bound (`isWindowBound`), not the stopwatches: how near the body came to the window's cap.
                d.evidence.confidence = min(1, max(0, 1 - abs(rate / cap - 1) / windowCapTolerance))
            } else {
                d.evidence.confidence = min(1, max(0, lead - (next?.share ?? 0)))
            }
        case .clientCPU:
            let demand = (e.host?.cpuShare ?? 0) + (e.host?.runQueueShare ?? 0)
            d.evidence.confidence = past(demand, HostFacts.boundShare, full: 1)
        case .h2Window:
            d.evidence.confidence = past(e.nothingUnsentShare ?? 0, h2StarvedShare, full: 1)
        }
        return d
    }

    /// An upload's share for `verdict` and the largest other one, with its verdict (nil when there is none).
    static func leadingShares(_ verdict: Verdict, _ e: Evidence) -> (share: Double, next: (verdict: Verdict, share: Double)?) {
        let shares: [(verdict: Verdict, share: Double?)] = [
            (.serverWindow, e.receiveWindowLimitedShare), (.sendBuffer, e.sendBufferLimitedShare),
            (.network, e.networkShare), (.client, e.idleShare)]
        var lead = 0.0
        var next: (verdict: Verdict, share: Double)?
        for entry in shares {
            guard let share = entry.share else { continue }
            if entry.verdict == verdict {
                lead = share
            } else if share > (next?.share ?? -1) {
                next = (entry.verdict, share)
            }
        }
        return (lead, next)
    }

    /// A download's median receive RTT over the path's minimum, when both are known.
    static func queueRatio(_ e: Evidence) -> Double? {
        guard let median = e.receiveRTTMedian, let base = e.minRTT, base > 0 else { return nil }
        return Double(median) / Double(base)
    }

    /// A download's median receive RTT less the path's minimum, µs (0 when either is unknown).
    static func queueDelay(_ e: Evidence) -> Int64 {
        guard let median = e.receiveRTTMedian, let base = e.minRTT else { return 0 }
        return median - base
    }

    /// How far `value` passed `threshold`, 0 there and 1 at `full`.
    private static func past(_ value: Double, _ threshold: Double, full: Double) -> Double {
        min(1, max(0, (value - threshold) / max(full - threshold, 1e-9)))
    }
}
