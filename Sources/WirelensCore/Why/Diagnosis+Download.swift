/// A download's verdict from the receiving side: what the client sees of its own reading, its own window and the path.
///
/// On a download the kernel's stopwatches time the server, so the client's facts decide, in this order:
/// 1. `client`: the response body's writes to its sink (a file, a pipe, a slow disk) took at least `clientShare` of
///    the receive phase, or at least a segment waited unread in the receive queue in at least `clientShare` of the
///    samples: the client did not read;
/// 2. `client-window`: the body came at least at `windowFillFloor` of the client's own window over the path's minimum
///    RTT (`windowCap`), and the window stayed at its largest (its median at least `plateauShare` of its largest,
///    where the kernel gives the window itself): the window, not the path or the server, set the pace. A window the
///    kernel's auto-tuning is still growing (slow start) stays ahead of the sender and is not the limit;
/// 3. `network`: a loss sign on the way in (out-of-order arrivals) or a queue (the median receive RTT at least
///    `queueFactor` times the minimum and `TCPFacts.queueDelayFloor` above it, the data arriving steadily, not in
///    bursts with gaps: `queued`), the window not full;
/// 4. `server-send`: none of those: the window open, no queue, no loss, so the server sent slower than it allowed.
/// Without the path's minimum RTT or a receive window, rules 2 and 4 cannot be told: the verdict is then `network` on
/// a loss sign or a queue, else `unknown`, naming the missing field.
///
/// When other transfers shared the connection, the window's fill is the connection's: its bytes received over the
/// facts' span, not this body's alone.
extension Diagnosis {
    /// A write time or a full receive queue in at least this share means the client did not keep up.
    public static let clientShare = 0.5
    /// A body at least this share of window / RTT was held by that window.
    public static let windowFillFloor = 0.7
    /// A window whose median is at least this share of its largest stayed at its ceiling.
    public static let plateauShare = 0.8
    /// A median receive RTT at least this many times its minimum is a queue on the path.
    public static let queueFactor = 1.5
    /// Gaps in at least this share of the samples mean bursts: the receive RTT then measures the gaps.
    public static let burstFloor = 0.3

    /// The download verdict of facts `tcp` over a receive phase of `moving` µs.
    static func downloadDiagnosis(_ tcp: TCPFacts, input: Input, moving: Int64, evidence: Evidence) -> Diagnosis {
        var e = evidence
        let span = Double(max(moving, 1))
        e.writeTime = input.writeTime
        e.writeShare = min(1, Double(input.writeTime) / span)
        e.receiveQueueShare = tcp.receiveQueueShare
        e.burstShare = tcp.burstShare
        e.receiveBuffer = tcp.receiveBuffer.map { Int64($0) }
        e.receiveRTTMin = tcp.receiveRTTMin.map { Int64($0) }
        e.receiveRTTMedian = tcp.receiveRTTMedian.map { Int64($0) }
        let window = tcp.receiveWindowMedian ?? tcp.receiveSSThresholdMax.flatMap { $0 > 0 ? $0 : nil }
        e.receiveWindow = window.map { Int64($0) }
        e.receiveWindowMax = tcp.receiveWindowMax.map { Int64($0) }
        e.windowCap = nil
        if (e.writeShare ?? 0) >= clientShare || (e.receiveQueueShare ?? 0) >= clientShare {
            return Diagnosis(verdict: .client, evidence: e)
        }
        if let base = tcp.minRTT, base > 0, let window, window > 0 {
            let cap = Double(window) * 1e6 / Double(base)
            e.windowCap = cap
            let rate = tcp.shared ? tcp.bytesReceived.map { Double($0) * 1e6 / Double(max(tcp.span, 1)) } : e.bodyRate
            if let rate { e.windowFill = rate / cap }
            if let fill = e.windowFill, fill >= windowFillFloor, windowHeld(e) {
                return Diagnosis(verdict: .clientWindow, evidence: e)
            }
        }
        // A loss sign or a queue names the path even when the window is unknown; only server-send needs it.
        if (tcp.outOfOrderPacketsIn ?? 0) > 0 || queued(tcp) {
            return Diagnosis(verdict: .network, evidence: e)
        }
        guard (tcp.minRTT ?? 0) > 0 else { return unknown(.noMinimumRTT, e) }
        guard (window ?? 0) > 0 else { return unknown(.noReceiveWindow, e) }
        return Diagnosis(verdict: .serverSend, evidence: e)
    }

    /// True when the client's window stayed at its largest over the samples (or the kernel gives no window to tell).
    static func windowHeld(_ e: Evidence) -> Bool {
        guard let median = e.receiveWindow, let largest = e.receiveWindowMax, largest > 0 else { return true }
        return Double(median) >= plateauShare * Double(largest)
    }

    /// True when the median receive RTT shows a queue on the way in: at least `queueFactor` times the path's minimum
    /// RTT and `TCPFacts.queueDelayFloor` above it, the data arriving steadily (gaps in under `burstFloor` of the
    /// samples). The kernel measures the receive RTT from the timestamp the sender echoes, so a sender that pauses
    /// between bursts makes it the length of its pauses, queue or not.
    static func queued(_ tcp: TCPFacts) -> Bool {
        guard let base = tcp.minRTT, base > 0, let median = tcp.receiveRTTMedian, (tcp.burstShare ?? 0) < burstFloor
        else { return false }
        return Double(median) >= queueFactor * Double(base) && median >= base &+ TCPFacts.queueDelayFloor
    }

    /// The round trip the body moved over (µs), against which a short body is told: the smoothed RTT, or for a
    /// download the smaller receive RTT the kernel measured over the body's own data (the smoothed RTT of a client
    /// that sent only its request rests on the handshake, which a lost SYN/ACK stretches to a second).
    static func bodyRoundTrip(_ tcp: TCPFacts, download: Bool) -> Int64 {
        let smoothed = Int64(tcp.smoothedRTT)
        guard download, tcp.receiveRTT > 0 else { return smoothed }
        return min(smoothed, Int64(tcp.receiveRTT))
    }

    /// The round trip a download's wait holds (the request out, the first byte back): the minimum RTT, at most the
    /// wait; 0 without kernel facts.
    static func requestTrip(_ input: Input) -> Int64 {
        guard let tcp = input.tcp, let wait = input.phases.wait else { return 0 }
        return min(wait, Int64(tcp.minRTT ?? tcp.smoothedRTT))
    }

    /// The server's own share of the total: the wait, less a download's request round trip.
    static func thinkShare(_ input: Input, download: Bool) -> Double {
        guard let wait = input.phases.wait else { return 0 }
        return share(wait - (download ? requestTrip(input) : 0), of: max(input.phases.total, 1))
    }
}
