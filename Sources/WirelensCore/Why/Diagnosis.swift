/// Why a transfer took the time it took: a verdict from a fixed set, a sentence, and the numbers behind it.
///
/// Decided by `Diagnosis.of(_:)` from the transaction's phases and the kernel's facts (`TCPFacts`), in this order:
/// 1. the server's wait is at least half of the total: `server-think` (the phases tell it, kernel facts or not);
/// 2. no kernel facts: `unknown`, with the reason;
/// 3. the body moved within `shortTransferRoundTrips` round trips: `round-trips` when handshakes and those round
///    trips hold at least half of the total, else `unknown` (too short to tell);
/// 4. an upload (the client sends): under `stopwatchFloor` (100 ms) `unknown`, too short for the kernel's stopwatches;
///    else the send phase is split into the kernel's stopwatches, receive-window limited,
///    send-buffer limited, the rest of the busy time (congestion-window limited: the path) and the time with nothing
///    queued (the client); the largest share names the verdict. The send buffer's share is the kernel's
///    `sndbuf_limited`, or, when larger, the share of the samples in which the buffer held the bytes in flight while
///    both windows allowed more (`TCPFacts.bufferBound`) applied to the busy time not rwnd-limited: the kernel starts
///    that stopwatch only when the application is blocked with nothing left unsent after a transmission, so a small
///    buffer whose segment or two in flight wait for a (delayed) ACK counts as busy;
///    a body that moved within 20% of the peer's window over the RTT on a path without a queue is `server-window`
///    whatever the shares (`isWindowBound`: an ack-clocked sender held by the window counts as busy);
/// 5. a download (the client receives): the sender's stopwatches are the server's, so only a loss sign seen by the
///    receiver (out-of-order arrivals) names `network`; otherwise `unknown`, with what the client saw.
///
/// Only the verdict and the numbers are kept; the sentence (`explanation`) is made from them when it is read, so a
/// run of many short transfers formats no text it does not write.
public struct Diagnosis: Sendable, Equatable, Codable {
    public var verdict: Verdict
    /// The numbers behind the verdict.
    public var evidence: Evidence

    /// One sentence with the numbers, saying what would help (`DiagnosisSentence`).
    public var explanation: String { DiagnosisSentence.text(verdict, evidence) }

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
        /// When the buffer held the sender back: the median segments in flight then, their size (bytes) and the
        /// median congestion window then (segments).
        @NullWhenAbsent public var segmentsInFlight: Int?
        @NullWhenAbsent public var segmentSize: Int?
        @NullWhenAbsent public var congestionWindow: Int?
        @NullWhenAbsent public var networkShare: Double?
        @NullWhenAbsent public var idleShare: Double?
        /// The server's wait (µs) and its share of the total.
        @NullWhenAbsent public var wait: Int64?
        @NullWhenAbsent public var waitShare: Double?
        /// The TCP and TLS handshakes, µs.
        @NullWhenAbsent public var handshakes: Int64?
        /// The smoothed and minimum round-trip times, and the receiver's estimate, µs.
        @NullWhenAbsent public var rtt: Int64?
        @NullWhenAbsent public var minRTT: Int64?
        @NullWhenAbsent public var receiveRTT: Int64?
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

    public init(verdict: Verdict, evidence: Evidence) {
        self.verdict = verdict
        self.evidence = evidence
    }

    private enum CodingKeys: String, CodingKey {
        case verdict, explanation, evidence
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        verdict = try c.decode(Verdict.self, forKey: .verdict)
        evidence = try c.decode(Evidence.self, forKey: .evidence)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(explanation, forKey: .explanation)
        try c.encode(evidence, forKey: .evidence)
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
        evidence.wait = phases.wait
        if let wait = phases.wait { evidence.waitShare = share(wait, of: total) }
        evidence.sharedConnection = input.tcp?.shared ?? false
        // The server's wait needs no kernel fact: the phases tell it.
        if let waitShare = evidence.waitShare, waitShare >= 0.5 {
            return Diagnosis(verdict: .serverThink, evidence: evidence)
        }
        guard let tcp = input.tcp else {
            return unknown(input.missingReason ?? "no kernel facts were read for this transfer", evidence)
        }
        let rtt = Int64(tcp.smoothedRTT)
        evidence.rtt = rtt
        evidence.minRTT = tcp.minRTT.map { Int64($0) }
        evidence.receiveRTT = Int64(tcp.receiveRTT)
        evidence.retransmittedShare = tcp.retransmittedShare
        evidence.outOfOrderPacketsIn = tcp.outOfOrderPacketsIn.map { Int($0) }
        evidence.deliveryRate = tcp.deliveryRateMedian.map { Double($0) }
        evidence.peerWindow = (tcp.peerWindowMedian ?? tcp.peerWindowMin).map { Int64($0) }
        evidence.zeroWindowShare = tcp.zeroWindowShare
        if let window = evidence.peerWindow, rtt > 0 { evidence.windowCap = Double(window) * 1e6 / Double(rtt) }
        evidence.sendBuffer = tcp.sendBuffer.map { Int64($0) }
        if rtt > 0 { evidence.roundTrips = Double(phases.total) / Double(rtt) }
        let handshakes = (phases.connect ?? 0) + (phases.tls ?? 0)
        evidence.handshakes = handshakes

        let moving = evidence.movingTime ?? 0
        if moving <= shortTransferRoundTrips * max(rtt, 1) {
            if rtt > 0, (handshakes + moving) * 2 >= total {
                return Diagnosis(verdict: .roundTrips, evidence: evidence)
            }
            return unknown(Self.tooShortReason, evidence)
        }
        if upload { return uploadDiagnosis(tcp, moving: moving, evidence: evidence) }
        if let outOfOrder = tcp.outOfOrderPacketsIn, outOfOrder > 0 {
            return Diagnosis(verdict: .network, evidence: evidence)
        }
        return unknown(Self.downloadReason, evidence)
    }

    /// The shortest send phase (µs) the kernel's stopwatches can split: they count whole clock ticks (jiffies, 1 ms at
    /// HZ=1000 to 10 ms at HZ=100), so a shorter phase reads as mostly idle (on loopback a 256 KiB upload moving in
    /// 1.5 ms showed busy 0: `client`, though its source was always ready). At 100 ms a tick is at most a tenth.
    public static let stopwatchFloor: Int64 = 100_000
    /// Why an upload whose send phase is shorter than `stopwatchFloor` gets no verdict.
    public static let stopwatchReason = "too short to tell: the send phase was under 100 ms, and the kernel's stopwatches "
        + "count whole clock ticks (1-10 ms)"

    /// Why a body that moved within a few round trips gets no verdict (its numbers are in the evidence).
    public static let tooShortReason = "too short to tell: the body moved within \(shortTransferRoundTrips) round trips"
    /// Why a download without a loss sign gets no verdict.
    public static let downloadReason = "the client received: the sender's limits are the server's to see, and no loss sign came in"

    /// An upload: the kernel's stopwatches split the send phase, and the largest share names the verdict.
    private static func uploadDiagnosis(_ tcp: TCPFacts, moving: Int64, evidence: Evidence) -> Diagnosis {
        guard let busy = tcp.busy, let rwnd = tcp.receiveWindowLimited, let sndbuf = tcp.sendBufferLimited else {
            return unknown("the kernel lacks the limited-time stopwatches (tcpi_busy_time, Linux 4.10)", evidence)
        }
        var evidence = evidence
        let span = Double(max(moving, 1))
        let busyTime = min(Double(busy), span)
        let rwndShare = min(Double(rwnd), busyTime) / span
        let bound = tcp.bufferBound
        evidence.bufferBoundShare = bound?.share
        if let bound, bound.segmentsInFlight > 0 {
            evidence.segmentsInFlight = Int(bound.segmentsInFlight)
            evidence.segmentSize = Int(tcp.sendMSS)
            evidence.congestionWindow = Int(bound.congestionWindow)
        }
        let notWindowLimited = max(0, busyTime / span - rwndShare)
        let sndbufShare = min(max(min(Double(sndbuf), busyTime) / span, (bound?.share ?? 0) * notWindowLimited),
                              notWindowLimited)
        let networkShare = max(0, notWindowLimited - sndbufShare)
        let idleShare = max(0, 1 - busyTime / span)
        evidence.receiveWindowLimitedShare = rwndShare
        evidence.sendBufferLimitedShare = sndbufShare
        evidence.networkShare = networkShare
        evidence.idleShare = idleShare
        // The shares stay in the evidence (they are the kernel's numbers); only the verdict needs the resolution.
        guard moving >= stopwatchFloor else { return unknown(stopwatchReason, evidence) }
        // A body at window / RTT on a path without a queue was the window's, whatever the stopwatches read.
        if isWindowBound(tcp, evidence) { return Diagnosis(verdict: .serverWindow, evidence: evidence) }
        let largest = max(rwndShare, sndbufShare, networkShare, idleShare)
        let verdict: Verdict = largest == rwndShare ? .serverWindow : largest == sndbufShare ? .sendBuffer
            : largest == networkShare ? .network : .client
        return Diagnosis(verdict: verdict, evidence: evidence)
    }

    /// The `unknown` verdict with its reason, kept in the evidence.
    private static func unknown(_ reason: String, _ evidence: Evidence) -> Diagnosis {
        var evidence = evidence
        evidence.reason = reason
        return Diagnosis(verdict: .unknown, evidence: evidence)
    }

    private static func share(_ part: Int64, of whole: Int64) -> Double {
        Double(part) / Double(max(whole, 1))
    }
}
