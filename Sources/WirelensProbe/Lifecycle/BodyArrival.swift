import WirelensCore

/// Estimates when an upload body's last byte reached the server, from the client kernel's TCP facts looked at while
/// the body's end was in flight.
///
/// The peer's acknowledgement of the last byte is no clock for its arrival: a receiver may hold the ACK of a final
/// odd segment up to 40 ms (or until its response carries it), and one whose window is full acknowledges what it
/// read, not what arrived. So the looks (`add`) only follow the body's end through the connection's byte counters
/// (`tcpi_bytes_acked`, the bytes in flight and not sent yet), and the arrival is, in the kernel's terms:
///
/// - **window-bound** (the look before the last byte left found the bytes in flight filling the peer's advertised
///   window, or at least `windowBoundShare` of the looks that found bytes unsent did: a sender held to the peer's
///   window also meets its congestion window now and then, at the last look too): the sender was waiting for the
///   server to read, so the path held no queue and the last byte arrived
///   one way after it left: `sent + minRTT/2`, `sent` the middle of the two looks around the moment nothing was
///   left unsent. Error: half the look interval (1 ms near that moment), plus what a burst the window let out at once waits in a
///   slower link's queue (the burst over the link's rate).
/// - **queue** (otherwise: the congestion window or the path held the sender back, alone or with flows sharing its
///   queue): the peer acknowledged the bytes on arrival (it holds only the final odd segment's ACK), so the last
///   look that saw a new acknowledgement short of the end (`progress`) places that count's arrival one way before the
///   middle of it and the look before; the rest arrives after it at the flow's share of the bottleneck, the bytes
///   acknowledged from the first look to that one over the time between them (the fastest delivery rate seen when
///   they are less than 5 ms apart): `progress + rest / share - minRTT/2`, never before `sent + minRTT/2`. Only the
///   last such look counts: the kernel's rate samples of earlier ones say nothing of the flows sharing the queue at
///   the end, and a flow's rate sample near its end is app-limited. Error: half the look interval (1 ms near the
///   end) plus, when the peer held the final segment's ACK, the final segment's time at the share against its time
///   as it came (others' segments between); otherwise the look that saw the whole body acknowledged bounds it. The
///   one way is half the connection's minimum RTT: a connection that never saw the queue empty overstates it.
///   After a retransmission since `progress` the lost bytes arrived as the retransmission did, which only the
///   acknowledgement of the whole body tells: its look, one way before, is the estimate.
///
/// Either way the arrival is no later than one way before the look that saw the whole body acknowledged, or
/// before the response's first byte, and no earlier than the body was written. A pure value: the instants come
/// with the samples, no clock is read.
struct BodyArrival: Equatable {
    /// What one look at the socket's TCP facts tells, in the connection's byte counts.
    struct Sample: Equatable {
        /// When the look was taken (monotonic ns).
        var at: Int64
        /// Bytes the peer acknowledged over the connection's life (`tcpi_bytes_acked`).
        var acked: UInt64
        /// Bytes sent and not acknowledged yet (`tcpi_bytes_sent` less retransmissions, less the acknowledged).
        var inFlight: UInt64
        /// Bytes written by the application and not sent yet (`tcpi_notsent_bytes`).
        var notSent: UInt64
        /// The peer's advertised window in bytes (`tcpi_snd_wnd`, 5.4), if the kernel has it.
        var sendWindow: UInt64?
        /// Bytes retransmitted over the connection's life (`tcpi_bytes_retrans`).
        var retransmitted: UInt64
        /// The sender's segment size (`tcpi_snd_mss`).
        var segmentSize: UInt64
        /// The smallest round-trip time the kernel saw (ns), if it has one.
        var minRTT: Int64?
        /// The kernel's latest delivery rate estimate (bytes/s), if it has one.
        var deliveryRate: UInt64?

        init(at: Int64, acked: UInt64, inFlight: UInt64, notSent: UInt64, sendWindow: UInt64? = nil,
             retransmitted: UInt64 = 0, segmentSize: UInt64 = 1448, minRTT: Int64? = nil, deliveryRate: UInt64? = nil) {
            self.at = at
            self.retransmitted = retransmitted
            self.acked = acked
            self.inFlight = inFlight
            self.notSent = notSent
            self.sendWindow = sendWindow
            self.segmentSize = segmentSize
            self.minRTT = minRTT
            self.deliveryRate = deliveryRate
        }

        /// The look a kernel snapshot is, or nil when the kernel lacks the byte counters (before 4.19).
        init?(_ info: TCPInfo, at: Int64) {
            guard let acked = info.bytesAcked, let sent = info.bytesSent, let retransmitted = info.bytesRetrans,
                  let notSent = info.notSentBytes else { return nil }
            let fresh = sent >= retransmitted ? sent - retransmitted : 0
            self.init(at: at, acked: acked, inFlight: fresh >= acked ? fresh - acked : 0, notSent: UInt64(notSent),
                      sendWindow: info.sendWindow.map(UInt64.init), retransmitted: retransmitted, segmentSize: UInt64(max(info.sendMSS, 1)),
                      minRTT: info.minRTT.map { Int64($0) * 1000 }, deliveryRate: info.deliveryRate)
        }
    }

    /// When the body was all written (monotonic ns): its last byte left no earlier.
    let written: Int64
    /// The acknowledged count at which the body's last byte is acknowledged (set by the first look).
    private(set) var end: UInt64?
    /// The first look (nil before it).
    private(set) var first: Sample?
    /// The previous look (nil before the first).
    private(set) var previous: Sample?
    /// The middle of the two looks around the moment nothing was left unsent: when the last byte left.
    private(set) var sent: Int64?
    /// True when the sender was held to the peer's window as its last byte left (`windowBoundShare`).
    private(set) var windowBound = false
    /// The looks before the last byte left that found bytes unsent and knew the peer's window, and how many of them
    /// found that window full.
    private(set) var unsentLooks = 0
    private(set) var windowFullLooks = 0
    /// The first look that saw the whole body acknowledged.
    private(set) var acknowledged: Int64?
    /// The last look that saw a new acknowledgement short of the end, and when the look before it was taken.
    private(set) var progress: Sample?
    private(set) var progressSince: Int64 = 0
    /// The smallest round-trip time seen (ns).
    private(set) var minRTT: Int64?
    /// The fastest delivery rate seen (bytes/s; 0: none).
    private(set) var fastest: UInt64 = 0

    /// The share of the looks with bytes unsent that must find the peer's window full for a window-bound sender
    /// whose look before its last byte left did not: its congestion window stays small with so little in flight,
    /// and a look may catch it there.
    static let windowBoundShare = 0.25

    /// The shortest and the longest wait before the next look (ns).
    static let closestLook: Int64 = 2_000_000
    static let farthestLook: Int64 = 10_000_000

    init(written: Int64) {
        self.written = written
    }

    /// True once later looks tell nothing more: the whole body is acknowledged, or the last byte left a window-bound
    /// sender (its arrival follows from that moment alone).
    var isComplete: Bool { acknowledged != nil || (sent != nil && windowBound) }

    /// When the next look is due (monotonic ns): looks come closer as the next moment that matters nears (the last
    /// byte leaving, then the rest arriving): a quarter of the time the bytes before it take at twice the fastest
    /// delivery rate seen (less than it will take, so no look comes late), 2 to 10 ms after the last look; 2 ms
    /// without a rate.
    var nextLook: Int64 {
        guard let look = previous else { return written + Self.closestLook }
        guard fastest > 0, let end else { return look.at + Self.closestLook }
        let ahead = sent == nil ? look.notSent : (end > look.acked ? end - look.acked : 0)
        let due = Int64((Double(ahead) / Double(fastest) * 1e9 / 4).rounded())
        return look.at + min(max(due, Self.closestLook), Self.farthestLook)
    }

    /// When the previous look was taken (or the body written, before the first).
    var lastLook: Int64 { previous?.at ?? written }

    /// Takes a look taken after libcurl handed the whole body to the socket; true once later looks tell nothing more
    /// (`isComplete`).
    mutating func add(_ sample: Sample) -> Bool {
        guard !isComplete else { return true }
        let end = self.end ?? (sample.acked + sample.inFlight + sample.notSent)
        self.end = end
        if first == nil { first = sample }
        if let rtt = sample.minRTT, rtt > 0 { minRTT = min(minRTT ?? rtt, rtt) }
        if let rate = sample.deliveryRate { fastest = max(fastest, rate) }
        if sent == nil, sample.notSent > 0, let window = sample.sendWindow {
            unsentLooks += 1
            if Self.fills(sample, window) { windowFullLooks += 1 }
        }
        if sent == nil, sample.notSent == 0 {
            sent = lastLook + (sample.at - lastLook) / 2
            if let before = previous, before.notSent > 0, let window = before.sendWindow {
                windowBound = Self.fills(before, window)
                    || Double(windowFullLooks) >= Self.windowBoundShare * Double(unsentLooks)
            }
        }
        if sample.acked >= end {
            acknowledged = sample.at
        } else if previous.map({ $0.acked != sample.acked }) ?? true {
            progressSince = lastLook
            progress = sample
        }
        previous = sample
        return isComplete
    }

    /// True when a look's bytes in flight leave no room for another segment in the peer's window.
    private static func fills(_ look: Sample, _ window: UInt64) -> Bool {
        look.inFlight + look.segmentSize >= window
    }

    /// The shortest span (ns) from the first look over which the acknowledged bytes give the flow's share.
    static let shareSpan: Int64 = 5_000_000

    /// The flow's rate (bytes/s) from the first look to `look`: the bytes acknowledged between them over the time,
    /// or the fastest delivery rate seen when they are less than `shareSpan` apart or nothing was acknowledged.
    func share(until look: Sample) -> Double {
        guard let first, look.at - first.at >= Self.shareSpan, look.acked > first.acked else { return Double(fastest) }
        return Double(look.acked - first.acked) / Double(look.at - first.at) * 1e9
    }

    /// When the body's last byte reached the server (monotonic ns), given the response's first byte if it began;
    /// nil when no look saw the last byte leave.
    func arrival(responseStart: Int64?) -> Int64? {
        guard let sent, let end else { return nil }
        let oneWay = (minRTT ?? 0) / 2
        var estimate = sent + oneWay
        let bounds = [acknowledged, responseStart].compactMap { $0 }
        if !windowBound, let progress {
            if (previous?.retransmitted ?? 0) > progress.retransmitted, let bound = bounds.min() {
                estimate = max(estimate, bound - oneWay)
            } else {
                let rate = share(until: progress)
                let rest = rate > 0 ? Double(end - progress.acked) / rate * 1e9 : 0
                let seen = progress.at - (progress.at - progressSince) / 2
                estimate = max(estimate, seen + Int64(rest.rounded()) - oneWay)
            }
        }
        if let bound = bounds.min() {
            estimate = min(estimate, bound - oneWay)
        }
        return max(estimate, written)
    }
}
