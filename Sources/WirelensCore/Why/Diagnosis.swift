/// Why a transfer took the time it took: a verdict from a fixed set, a sentence, and the numbers behind it.
///
/// Decided by `Diagnosis.of(_:)` from the transaction's phases and the kernel's facts (`TCPFacts`), in this order:
/// 1. the server's wait is at least half of the total: `server-think` (the phases tell it, kernel facts or not), or
///    `client-cpu` when this machine held the probe back over the request and the wait (`HostFacts.bound`);
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
/// (after 2 to 5, `round-trips` aside: the engine's loop thread CPU-bound over the moving phase, `HostFacts.bound`, makes
/// the verdict `client-cpu`, the evidence kept: the host set the pace, whatever the kernel's stopwatches say;
/// `Diagnosis+Host`)
/// (before 4: an HTTP/2 upload whose body was ready and in most of whose samples no window, buffer or queue held
/// back what libcurl had written is `h2-window`; `Diagnosis+H2Window`)
/// 5. a download (the client receives): the sender's stopwatches are the server's, so the receiver's own facts decide
///    (`downloadDiagnosis`, in `Diagnosis+Download`): `client`, `client-window`, `network` or `server-send`.
///
/// A download's wait holds the request's round trip, so its server think is the wait less the minimum RTT (rule 1),
/// and that round trip counts toward `round-trips` (rule 3). Every verdict then gets its confidence and basis
/// (`rated`, in `Diagnosis+Confidence`).
///
/// Only the verdict and the numbers are kept; the sentence (`explanation`) is made from them when it is read, so a
/// run of many short transfers formats no text it does not write.
public struct Diagnosis: Sendable, Equatable, Codable {
    public var verdict: Verdict
    /// The numbers behind the verdict.
    public var evidence: Evidence

    /// One sentence with the numbers, saying what would help (`DiagnosisSentence`).
    public var explanation: String { DiagnosisSentence.text(verdict, evidence) }

    /// What the verdict rests on: the leading share against the next, or the checks that held with their figures
    /// (`DiagnosisBasis`); nil for `unknown`.
    public var basis: String? { DiagnosisBasis.text(verdict, evidence) }

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
        @NullWhenAbsent public var reason: UnknownReason?
        /// A download's receive side (`Diagnosis+Download`): the time the response body's writes took (µs; the
        /// client was not reading then) and its share of `movingTime`.
        @NullWhenAbsent public var writeTime: Int64?
        @NullWhenAbsent public var writeShare: Double?
        /// The receive window the client advertised (the samples' median, `tcpi_rcv_wnd`; before kernel 6.3 the
        /// ceiling the kernel set on it, `tcpi_rcv_ssthresh`), bytes, and the socket's receive buffer (`SO_RCVBUF`).
        @NullWhenAbsent public var receiveWindow: Int64?
        @NullWhenAbsent public var receiveBuffer: Int64?
        /// The largest receive window of the samples (bytes, 6.3): a median well below it is a window still growing.
        @NullWhenAbsent public var receiveWindowMax: Int64?
        /// The smallest and the median receive RTT of the samples (µs): a median well above the minimum is a queue.
        @NullWhenAbsent public var receiveRTTMin: Int64?
        @NullWhenAbsent public var receiveRTTMedian: Int64?
        /// The body's rate over `windowCap` (for a download, the client's window over the path's minimum RTT).
        @NullWhenAbsent public var windowFill: Double?
        /// The share of the samples in which at least a segment waited unread in the receive queue (SIOCINQ).
        @NullWhenAbsent public var receiveQueueShare: Double?
        /// The share of the samples in which data had not arrived for a while (`TCPFacts.burstShare`): bursts with
        /// gaps, whose receive RTT measures the gaps rather than a queue.
        @NullWhenAbsent public var burstShare: Double?
        /// How sure the verdict is, 0 (a tie, or at the rule's threshold) to 1 (`Diagnosis+Confidence`); what it
        /// rests on is the diagnosis' `basis`. Nil for `unknown`, whose `reason` names the missing fact.
        @NullWhenAbsent public var confidence: Double?
        /// What the host gave the engine's loop thread over the moving phase (`client-cpu`'s evidence).
        @NullWhenAbsent public var host: HostFacts?
        /// For an HTTP/2 upload with its body ready: the share of the samples in which neither TCP window, the send
        /// buffer nor a queue held back what libcurl had written, and the most bytes in flight then
        /// (`h2-window`'s evidence: about what the flow-control window let out per round trip).
        @NullWhenAbsent public var nothingUnsentShare: Double?
        @NullWhenAbsent public var inFlightMax: Int64?

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
        /// The time the response body's writes to its sink took, µs (the engine's own stopwatch).
        public var writeTime: Int64
        /// What the host gave the engine's loop thread while the request was sent and while the response came.
        public var hostSend: HostFacts?
        public var hostReceive: HostFacts?
        /// True when the request body went over HTTP/2 from a source always ready to read (a file, generated bytes;
        /// not a pipe): its sender idle means the flow-control window, not the source.
        public var http2ReadyBody = false

        public init(phases: Phases, requestBodyBytes: Int64, responseBodyBytes: Int64, tcp: TCPFacts?,
                    missingReason: String? = nil, throughProxy: Bool = false, writeTime: Int64 = 0,
                    hostSend: HostFacts? = nil, hostReceive: HostFacts? = nil) {
            self.hostSend = hostSend
            self.hostReceive = hostReceive
            self.phases = phases
            self.requestBodyBytes = requestBodyBytes
            self.responseBodyBytes = responseBodyBytes
            self.tcp = tcp
            self.missingReason = missingReason
            self.throughProxy = throughProxy
            self.writeTime = writeTime
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
        case verdict, explanation, basis, evidence
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        verdict = try c.decode(Verdict.self, forKey: .verdict)
        evidence = try c.decode(Evidence.self, forKey: .evidence)
    }

    /// Through the diagnosis's one writer (`KernelFactsJSONWriter`).
    public func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
    }

    /// The diagnosis of one transaction, with how sure it is (`rated`).
    public static func of(_ input: Input) -> Diagnosis {
        rated(decided(input), input)
    }

    /// The verdict of one transaction and its evidence, by the rules above.
    private static func decided(_ input: Input) -> Diagnosis {
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
        // The server's wait needs no kernel fact: the phases tell it (a download's wait holds a round trip too),
        // unless this machine held the probe back over it (a CPU quota's throttling, a busy neighbour on its CPU):
        // then the answer waited for the client (`hostSend` spans the request and the wait).
        if let waitShare = evidence.waitShare, waitShare >= 0.5, thinkShare(input, download: download) >= 0.5 {
            guard let held = input.hostSend, held.bound else { return Diagnosis(verdict: .serverThink, evidence: evidence) }
            evidence.host = held
            return Diagnosis(verdict: .clientCPU, evidence: evidence)
        }
        evidence.host = upload ? input.hostSend : (download ? input.hostReceive : nil)
        guard let tcp = input.tcp else {
            return hostLimited(unknown(.noKernelFacts(input.missingReason ?? "no kernel facts were read for this transfer"),
                                       evidence))
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
        if moving <= shortTransferRoundTrips * max(bodyRoundTrip(tcp, download: download), 1) {
            if rtt > 0, (handshakes + moving + (download ? requestTrip(input) : 0)) * 2 >= total {
                return Diagnosis(verdict: .roundTrips, evidence: evidence)
            }
            return hostLimited(unknown(.tooShort, evidence))
        }
        // Before the host: libcurl 7.88 polls a stream blocked by flow control without waiting, so its loop thread
        // looks CPU-bound then.
        if upload, input.http2ReadyBody, let held = h2WindowHeld(tcp, moving: moving, evidence: evidence) { return held }
        if upload { return hostLimited(uploadDiagnosis(tcp, moving: moving, evidence: evidence)) }
        return hostLimited(downloadDiagnosis(tcp, input: input, moving: moving, evidence: evidence))
    }

    /// The shortest send phase (µs) the kernel's stopwatches can split: they count whole clock ticks (jiffies, 1 ms at
    /// HZ=1000 to 10 ms at HZ=100), so a shorter phase reads as mostly idle (on loopback a 256 KiB upload moving in
    /// 1.5 ms showed busy 0: `client`, though its source was always ready). At 100 ms a tick is at most a tenth.
    public static let stopwatchFloor: Int64 = 100_000

    /// An upload: the kernel's stopwatches split the send phase, and the largest share names the verdict.
    private static func uploadDiagnosis(_ tcp: TCPFacts, moving: Int64, evidence: Evidence) -> Diagnosis {
        guard let busy = tcp.busy, let rwnd = tcp.receiveWindowLimited, let sndbuf = tcp.sendBufferLimited else {
            return unknown(.noStopwatches, evidence)
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
        guard moving >= stopwatchFloor else { return unknown(.belowStopwatchFloor, evidence) }
        // A body at window / RTT on a path without a queue was the window's, whatever the stopwatches read.
        if isWindowBound(tcp, evidence) { return Diagnosis(verdict: .serverWindow, evidence: evidence) }
        let largest = max(rwndShare, sndbufShare, networkShare, idleShare)
        let verdict: Verdict = largest == rwndShare ? .serverWindow : largest == sndbufShare ? .sendBuffer
            : largest == networkShare ? .network : .client
        return Diagnosis(verdict: verdict, evidence: evidence)
    }

    /// The `unknown` verdict with its reason, kept in the evidence.
    static func unknown(_ reason: UnknownReason, _ evidence: Evidence) -> Diagnosis {
        var evidence = evidence
        evidence.reason = reason
        return Diagnosis(verdict: .unknown, evidence: evidence)
    }

    static func share(_ part: Int64, of whole: Int64) -> Double {
        Double(part) / Double(max(whole, 1))
    }
}

extension Diagnosis: CompactJSONWritable {
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        KernelFactsJSONWriter.append(self, to: &bytes)
    }
}
