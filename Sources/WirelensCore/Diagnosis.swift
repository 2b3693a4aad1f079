/// Why a transfer took the time it took: a verdict from a fixed set, a sentence, and the numbers behind it.
///
/// Decided by `Diagnosis.of(_:)` from the transaction's phases and the kernel's facts (`TCPFacts`), in this order:
/// 1. no kernel facts: `unknown`, with the reason;
/// 2. the server's wait is at least half of the total: `server-think`;
/// 3. the body moved within `shortTransferRoundTrips` round trips: `round-trips` when handshakes and those round
///    trips hold at least half of the total, else `unknown` (too short to tell);
/// 4. an upload (the client sends): the send phase is split into the kernel's stopwatches, receive-window limited,
///    send-buffer limited, the rest of the busy time (congestion-window limited: the path) and the time with nothing
///    queued (the client); the largest share names the verdict. The send buffer's share is the kernel's
///    `sndbuf_limited`, or, when larger, the share of the samples in which the buffer held the bytes in flight while
///    both windows allowed more (`TCPFacts.bufferBound`) applied to the busy time not rwnd-limited: the kernel starts
///    that stopwatch only when the application is blocked with nothing left unsent after a transmission, so a small
///    buffer whose segment or two in flight wait for a (delayed) ACK counts as busy;
/// 5. a download (the client receives): the sender's stopwatches are the server's, so only a loss sign seen by the
///    receiver (out-of-order arrivals) names `network`; otherwise `unknown`, with what the client saw.
public struct Diagnosis: Sendable, Equatable, Codable {
    public var verdict: Verdict
    /// One sentence with the numbers, saying what would help.
    public var explanation: String
    /// The numbers behind the verdict.
    public var evidence: Evidence

    /// The figures a reader should look at, each nil when it does not apply or is unknown.
    public struct Evidence: Sendable, Equatable, Codable {
        /// "upload", "download" or "none" (no body either way).
        public var direction: String
        /// The phase that moved the body (send for an upload, receive for a download), µs.
        @NullWhenAbsent public var movingTime: Int64?
        /// Shares of `movingTime` (0...1): the peer's window full, the send buffer full, the rest of the busy time
        /// (the path), nothing queued (the client).
        @NullWhenAbsent public var receiveWindowLimitedShare: Double?
        @NullWhenAbsent public var sendBufferLimitedShare: Double?
        /// The share of the samples with data in flight in which the client's send buffer held the sender back
        /// (in flight at least half the buffer, nothing unsent, the windows allowing more).
        @NullWhenAbsent public var bufferBoundShare: Double?
        /// The client socket's send buffer as the kernel reports it (`SO_SNDBUF`), bytes.
        @NullWhenAbsent public var sendBuffer: Int64?
        @NullWhenAbsent public var networkShare: Double?
        @NullWhenAbsent public var idleShare: Double?
        /// The share of the total spent in the server's wait.
        @NullWhenAbsent public var waitShare: Double?
        /// The smoothed and minimum round-trip times, µs.
        @NullWhenAbsent public var rtt: Int64?
        @NullWhenAbsent public var minRTT: Int64?
        /// How many round trips the total amounts to.
        @NullWhenAbsent public var roundTrips: Double?
        /// Retransmitted bytes over bytes sent.
        @NullWhenAbsent public var retransmittedShare: Double?
        /// Out-of-order packets received (a loss sign on the way in).
        @NullWhenAbsent public var outOfOrderPacketsIn: Int?
        /// The body's own rate over `movingTime`, bytes per second.
        @NullWhenAbsent public var bodyRate: Double?
        /// The median delivery rate the kernel measured, bytes per second.
        @NullWhenAbsent public var deliveryRate: Double?
        /// The median window the peer advertised in the samples, bytes.
        @NullWhenAbsent public var peerWindow: Int64?
        /// The share of the samples in which the peer's window was closed (zero).
        @NullWhenAbsent public var zeroWindowShare: Double?
        /// What that window allows one connection over the round trip: window / RTT, bytes per second.
        @NullWhenAbsent public var windowCap: Double?
        /// True when other transfers shared the connection: the figures describe the connection.
        public var sharedConnection: Bool = false
        /// True when the facts describe the hop to a proxy, not the path to the server.
        public var proxyHop: Bool = false
        /// Why the verdict is `unknown`.
        @NullWhenAbsent public var reason: String?

        public init(direction: String) {
            self.direction = direction
        }
    }

    /// The facts a diagnosis is made from.
    public struct Input: Sendable {
        public var phases: Phases
        public var requestBodyBytes: Int64
        public var responseBodyBytes: Int64
        public var tcp: TCPFacts?
        /// Why there are no kernel facts, when there are none (not Linux, socket already closed, …).
        public var missingReason: String?
        public var throughProxy: Bool

        public init(phases: Phases, requestBodyBytes: Int64, responseBodyBytes: Int64, tcp: TCPFacts?,
                    missingReason: String? = nil, throughProxy: Bool = false) {
            self.phases = phases
            self.requestBodyBytes = requestBodyBytes
            self.responseBodyBytes = responseBodyBytes
            self.tcp = tcp
            self.missingReason = missingReason
            self.throughProxy = throughProxy
        }
    }

    /// A peer window closed in at least this share of the samples means a slow reader, not a small buffer.
    public static let closedWindowShare = 0.25

    /// A body that moved within this many round trips is too short for a window or the path to matter.
    public static let shortTransferRoundTrips: Int64 = 4

    public init(verdict: Verdict, explanation: String, evidence: Evidence) {
        self.verdict = verdict
        self.explanation = explanation
        self.evidence = evidence
    }

    /// The diagnosis of one transaction.
    public static func of(_ input: Input) -> Diagnosis {
        let phases = input.phases
        let upload = input.requestBodyBytes > 0 && input.requestBodyBytes >= input.responseBodyBytes
        let download = !upload && input.responseBodyBytes > 0
        var evidence = Evidence(direction: upload ? "upload" : (download ? "download" : "none"))
        evidence.movingTime = upload ? phases.send : (download ? phases.receive : nil)
        if let moving = evidence.movingTime, moving > 0 {
            evidence.bodyRate = Double(upload ? input.requestBodyBytes : input.responseBodyBytes) * 1e6 / Double(moving)
        }
        evidence.proxyHop = input.throughProxy
        let total = max(phases.total, 1)
        if let wait = phases.wait { evidence.waitShare = share(wait, of: total) }
        guard let tcp = input.tcp else {
            return unknown(input.missingReason ?? "no kernel facts were read for this transfer", evidence, note: "")
        }
        let rtt = Int64(tcp.smoothedRTT)
        evidence.rtt = rtt
        evidence.minRTT = tcp.minRTT.map { Int64($0) }
        evidence.retransmittedShare = tcp.retransmittedShare
        evidence.outOfOrderPacketsIn = tcp.outOfOrderPacketsIn.map { Int($0) }
        evidence.deliveryRate = tcp.deliveryRateMedian.map { Double($0) }
        evidence.peerWindow = (tcp.peerWindowMedian ?? tcp.peerWindowMin).map { Int64($0) }
        evidence.zeroWindowShare = tcp.zeroWindowShare
        if let window = evidence.peerWindow, rtt > 0 { evidence.windowCap = Double(window) * 1e6 / Double(rtt) }
        evidence.sharedConnection = tcp.shared
        evidence.sendBuffer = tcp.sendBuffer.map { Int64($0) }
        if rtt > 0 { evidence.roundTrips = Double(phases.total) / Double(rtt) }
        let note = (tcp.shared ? " (figures of the connection, shared with other transfers)" : "")
            + (input.throughProxy ? " (the socket's facts describe the hop to the proxy)" : "")

        if let wait = phases.wait, let waitShare = evidence.waitShare, waitShare >= 0.5 {
            return Diagnosis(
                verdict: .serverThink,
                explanation: "The server took \(DurationText.format(micros: wait)) to answer, \(percent(waitShare)) of the "
                    + "total: a faster server, not the network, would help\(note).",
                evidence: evidence)
        }
        let moving = evidence.movingTime ?? 0
        if moving <= shortTransferRoundTrips * max(rtt, 1) {
            let handshakes = (phases.connect ?? 0) + (phases.tls ?? 0)
            let inRoundTrips = handshakes + moving
            if rtt > 0, inRoundTrips * 2 >= total {
                let trips = Double(inRoundTrips) / Double(rtt)
                return Diagnosis(
                    verdict: .roundTrips,
                    explanation: "About \(Format.fixed(trips, digits: 0)) round trips of \(DurationText.format(micros: rtt)) "
                        + "(handshakes and the first windows) hold \(percent(share(inRoundTrips, of: total))) of the time: "
                        + "reusing connections, TLS resumption or a shorter path help, bandwidth does not\(note).",
                    evidence: evidence)
            }
            return unknown("too short to tell: the body moved in \(DurationText.format(micros: moving)), within "
                           + "\(shortTransferRoundTrips) round trips of \(DurationText.format(micros: rtt))", evidence, note: note)
        }
        if upload { return uploadDiagnosis(tcp, moving: moving, evidence: evidence, note: note) }
        return downloadDiagnosis(tcp, moving: moving, evidence: evidence, note: note)
    }

    /// An upload: the kernel's stopwatches split the send phase, and the largest share names the verdict.
    private static func uploadDiagnosis(_ tcp: TCPFacts, moving: Int64, evidence: Evidence, note: String) -> Diagnosis {
        guard let busy = tcp.busy, let rwnd = tcp.receiveWindowLimited, let sndbuf = tcp.sendBufferLimited else {
            return unknown("the kernel lacks the limited-time stopwatches (tcpi_busy_time, Linux 4.10)", evidence, note: note)
        }
        var evidence = evidence
        let span = Double(max(moving, 1))
        let busyTime = min(Double(busy), span)
        let rwndShare = min(Double(rwnd), busyTime) / span
        let bound = tcp.bufferBound
        evidence.bufferBoundShare = bound?.share
        let notWindowLimited = max(0, busyTime / span - rwndShare)
        let sndbufShare = min(max(min(Double(sndbuf), busyTime) / span, (bound?.share ?? 0) * notWindowLimited),
                              notWindowLimited)
        let networkShare = max(0, notWindowLimited - sndbufShare)
        let idleShare = max(0, 1 - busyTime / span)
        evidence.receiveWindowLimitedShare = rwndShare
        evidence.sendBufferLimitedShare = sndbufShare
        evidence.networkShare = networkShare
        evidence.idleShare = idleShare
        let rtt = DurationText.format(micros: Int64(tcp.smoothedRTT))
        let largest = max(rwndShare, sndbufShare, networkShare, idleShare)
        if largest == rwndShare, let closed = evidence.zeroWindowShare, closed >= Self.closedWindowShare {
            let rate = evidence.bodyRate.map { " (it took the body at \(ByteSize.formatRate($0)))" } ?? ""
            return Diagnosis(
                verdict: .serverWindow,
                explanation: "The server's receive window was full \(percent(rwndShare)) of the send time and closed in "
                    + "\(percent(closed)) of the samples: the server read slower than the client sent\(rate); a "
                    + "faster-reading server helps, and parallel connections help when it paces each connection\(note).",
                evidence: evidence)
        }
        if largest == rwndShare {
            let window = evidence.peerWindow.map { ByteSize.format($0) } ?? "an unknown size"
            let cap = evidence.windowCap.map { " caps one connection at \(ByteSize.formatRate($0))" } ?? " held the sender back"
            return Diagnosis(
                verdict: .serverWindow,
                explanation: "The server's receive window was full \(percent(rwndShare)) of the send time: its window of "
                    + "\(window) over a \(rtt) RTT\(cap); parallel connections, a larger server buffer or a "
                    + "faster-reading server help\(note).",
                evidence: evidence)
        }
        if largest == sndbufShare {
            let size = evidence.sendBuffer.map { " of \(ByteSize.format($0))" } ?? ""
            let held = bound.flatMap { b in
                b.segmentsInFlight > 0 ? ": it let \(b.segmentsInFlight) segment\(b.segmentsInFlight == 1 ? "" : "s") of "
                    + "\(ByteSize.format(Int64(tcp.sendMSS))) be in flight while the congestion window allowed "
                    + "\(b.congestionWindow)\(evidence.peerWindow.map { " and the server's window \(ByteSize.format($0))" } ?? "")"
                    : nil
            } ?? ""
            return Diagnosis(
                verdict: .sendBuffer,
                explanation: "The client's socket send buffer\(size) was the limit \(percent(sndbufShare)) of the send "
                    + "time\(held); a larger send buffer (or leaving it to the kernel's auto-tuning) helps\(note).",
                evidence: evidence)
        }
        if largest == networkShare {
            let loss = evidence.retransmittedShare.map { ", \(percent($0, digits: 2)) of the bytes retransmitted" } ?? ""
            let rate = evidence.deliveryRate.map { ", delivering \(ByteSize.formatRate($0))" } ?? ""
            let floor = evidence.minRTT.map { " (min \(DurationText.format(micros: $0)))" } ?? ""
            return Diagnosis(
                verdict: .network,
                explanation: "The path was the limit: the sender was busy within its congestion window "
                    + "\(percent(networkShare)) of the send time, RTT \(rtt)\(floor)\(loss)\(rate); more connections "
                    + "help only when each flow is capped (loss, per-flow shaping), not when they share one link\(note).",
                evidence: evidence)
        }
        return Diagnosis(
            verdict: .client,
            explanation: "The sender had nothing queued \(percent(idleShare)) of the send time: the body source was slower "
                + "than the network (a faster reader, a larger read size or reading ahead helps)\(note).",
            evidence: evidence)
    }

    /// A download: only what the receiving client sees, and `unknown` rather than a guess.
    private static func downloadDiagnosis(_ tcp: TCPFacts, moving: Int64, evidence: Evidence, note: String) -> Diagnosis {
        let rate = evidence.bodyRate.map { ByteSize.formatRate($0) } ?? "an unknown rate"
        if let outOfOrder = tcp.outOfOrderPacketsIn, outOfOrder > 0 {
            return Diagnosis(
                verdict: .network,
                explanation: "\(outOfOrder) packets arrived out of order (a sign of loss on the way in) while the body "
                    + "came at \(rate), receive RTT \(DurationText.format(micros: Int64(tcp.receiveRTT))): the path "
                    + "from the server was the limit\(note).",
                evidence: evidence)
        }
        return unknown("the client received: the sender's limits are the server's to see; the body came at \(rate) "
                       + "with no loss sign", evidence, note: note)
    }

    /// The `unknown` verdict with its reason, kept in the evidence too.
    private static func unknown(_ reason: String, _ evidence: Evidence, note: String) -> Diagnosis {
        var evidence = evidence
        evidence.reason = reason
        return Diagnosis(verdict: .unknown, explanation: "Unknown: \(reason)\(note).", evidence: evidence)
    }

    private static func share(_ part: Int64, of whole: Int64) -> Double {
        Double(part) / Double(max(whole, 1))
    }

    private static func percent(_ value: Double, digits: Int = 0) -> String {
        "\(Format.fixed(value * 100, digits: digits))%"
    }
}
