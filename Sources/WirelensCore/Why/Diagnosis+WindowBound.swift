/// The window-bound rule of an upload's diagnosis: a body that moved at the peer's window over the round trip, on a
/// path with no queue, was held by that window, whatever share the kernel's rwnd-limited stopwatch gave it.
///
/// The kernel starts that stopwatch only when the window stops a transmission; an ack-clocked sender whose window
/// opens by a segment or two with each ACK stays busy, so over a long path a small window can read as mostly
/// `network`. The body's rate says what the stopwatch misses: at window / RTT the window alone explains it, and a
/// round trip near its minimum says no link was full (a full link queues, and its round trip grows).
extension Diagnosis {
    /// How close (a share of the cap, either way) the body's rate must be to window / RTT.
    public static let windowCapTolerance = 0.2

    /// The most queueing delay, as a share of the minimum round trip, a path may show and still count as not
    /// queueing (at least `TCPFacts.queueDelayFloor`).
    public static let unqueuedRTTShare = 0.125

    /// True when the upload moved at the peer's window over the RTT (`Evidence.windowCap`, within
    /// `windowCapTolerance`) and the path was not queueing: the smoothed round trip within `unqueuedRTTShare` of the
    /// minimum, or the body at no less than `1 - windowCapTolerance` of the window over the minimum round trip (a
    /// round trip grown only at the end, or by a busy delay line, while the window's bytes crossed at the minimum:
    /// a full link's own queue would hold the body below that).
    static func isWindowBound(_ tcp: TCPFacts, _ evidence: Evidence) -> Bool {
        guard let cap = evidence.windowCap, cap > 0, let rate = evidence.bodyRate, let minRTT = tcp.minRTT, minRTT > 0,
              let window = evidence.peerWindow
        else { return false }
        let queueing = Double(tcp.smoothedRTT) - Double(minRTT)
        let allowed = max(Double(TCPFacts.queueDelayFloor), Double(minRTT) * unqueuedRTTShare)
        let unqueuedCap = Double(window) * 1e6 / Double(minRTT)
        let unqueued = queueing <= allowed || rate >= (1 - windowCapTolerance) * unqueuedCap
        return abs(rate - cap) <= windowCapTolerance * cap && unqueued
    }
}
