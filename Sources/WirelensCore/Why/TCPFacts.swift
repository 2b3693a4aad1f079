/// What the kernel said about a transfer's connection: counters over the transfer, ranges and samples over time.
///
/// Counters belong to the connection and accumulate over its life, so each count here is the difference between
/// the transfer's first and last snapshots. A field the running kernel lacks is nil, never 0. When other transfers
/// used the connection at the same time (HTTP/2 streams), `shared` is true: the figures describe the connection.
public struct TCPFacts: Sendable, Equatable, Codable {
    /// Microseconds between the first and the last snapshot.
    public var span: Int64
    /// Bytes sent, retransmissions included (4.19).
    @NullWhenAbsent public var bytesSent: UInt64?
    /// Bytes the peer acknowledged (4.1).
    @NullWhenAbsent public var bytesAcked: UInt64?
    /// Bytes received (4.1).
    @NullWhenAbsent public var bytesReceived: UInt64?
    /// Bytes retransmitted (4.19).
    @NullWhenAbsent public var bytesRetransmitted: UInt64?
    /// Segments retransmitted.
    public var segmentsRetransmitted: UInt32
    /// Out-of-order packets received: losses or reordering on the way in (5.4).
    @NullWhenAbsent public var outOfOrderPacketsIn: UInt32?
    /// The smallest round-trip time the kernel has seen on the connection (µs; 4.6).
    @NullWhenAbsent public var minRTT: UInt32?
    /// The smoothed round-trip time at the last snapshot (µs).
    public var smoothedRTT: UInt32
    /// The largest smoothed round-trip time seen in any snapshot (µs).
    public var maxRTT: UInt32
    /// The receiver's round-trip estimate at the last snapshot (µs; what a receiving client sees).
    public var receiveRTT: UInt32
    /// The smallest and largest congestion windows seen, in segments.
    public var congestionWindowMin: UInt32
    public var congestionWindowMax: UInt32
    /// The sender's maximum segment size at the last snapshot.
    public var sendMSS: UInt32
    /// The path MTU at the last snapshot.
    public var pathMTU: UInt32
    /// The smallest receive window the peer advertised in any snapshot (bytes; 5.4).
    @NullWhenAbsent public var peerWindowMin: UInt32?
    /// The median of the receive windows the peer advertised in the samples (bytes; 5.4).
    @NullWhenAbsent public var peerWindowMedian: UInt32?
    /// The share of the samples in which the peer's window was closed (zero): it read slower than the data came.
    @NullWhenAbsent public var zeroWindowShare: Double?
    /// The largest delivery rate seen (bytes per second; 4.9).
    @NullWhenAbsent public var deliveryRateMax: UInt64?
    /// The median of the delivery rates of the samples the sender was not app-limited in (bytes per second).
    @NullWhenAbsent public var deliveryRateMedian: UInt64?
    /// Time with data queued to send (µs; 4.10).
    @NullWhenAbsent public var busy: UInt64?
    /// The part of `busy` when the peer's window was full (µs; 4.10).
    @NullWhenAbsent public var receiveWindowLimited: UInt64?
    /// The part of `busy` when the socket's send buffer was the limit (µs; 4.10).
    @NullWhenAbsent public var sendBufferLimited: UInt64?
    /// The socket's send buffer as the kernel reports it (`SO_SNDBUF`: double what was set, or the auto-tuned size;
    /// the larger of the readings at the first and the last snapshot), bytes.
    @NullWhenAbsent public var sendBuffer: UInt32?
    /// True when other transfers used the connection during this one: the figures describe the connection.
    public var shared = false
    /// The kernel's first RTT sample of the connection, SYN to SYN/ACK (µs): only on the transaction that opened it.
    @NullWhenAbsent public var handshakeRTT: UInt32?
    /// The receive side, what a downloading client sees of its own window and the path: the median and the largest
    /// receive window this end advertised in the samples (bytes; 6.3), the largest ceiling the kernel set on it
    /// (`tcpi_rcv_ssthresh`, bytes), and the receive buffer space of the last snapshot (`tcpi_rcv_space`, bytes).
    @NullWhenAbsent public var receiveWindowMedian: UInt32?
    @NullWhenAbsent public var receiveWindowMax: UInt32?
    @NullWhenAbsent public var receiveSSThresholdMax: UInt32?
    @NullWhenAbsent public var receiveSpace: UInt32?
    /// The smallest measured receive RTT of the snapshots and the median of the samples' (µs; 0s, not yet measured,
    /// left out): a median well above the minimum is a queue on the way in.
    @NullWhenAbsent public var receiveRTTMin: UInt32?
    @NullWhenAbsent public var receiveRTTMedian: UInt32?
    /// The socket's receive buffer as the kernel reports it (`SO_RCVBUF`: double what was set, or the auto-tuned
    /// size; the larger of the readings at the first and the last snapshot), bytes.
    @NullWhenAbsent public var receiveBuffer: UInt32?
    /// The share of the samples with a receive queue reading in which at least a segment had arrived unread
    /// (SIOCINQ): the application did not keep up.
    @NullWhenAbsent public var receiveQueueShare: Double?
    /// The share of the samples taken while the body came in which nothing had arrived for a while (at least 1.5
    /// times a segment's time at the body's average rate, a fifth of the median receive RTT and 1 ms): data came in
    /// bursts with gaps, so the receive RTT measures the gaps, not a queue.
    @NullWhenAbsent public var burstShare: Double?
    /// The snapshots over time, at most `Builder.sampleLimit` (evenly thinned beyond that). A document holds them
    /// only at `ReportDetail.full`, and only when there are any; one without them reads as none.
    @OmittedWhenEmpty public var samples: [TCPSample]

    /// Facts as given (`Builder.finish()` makes them from snapshots).
    public init(span: Int64, bytesSent: UInt64?, bytesAcked: UInt64?, bytesReceived: UInt64?, bytesRetransmitted: UInt64?,
                segmentsRetransmitted: UInt32, outOfOrderPacketsIn: UInt32?, minRTT: UInt32?, smoothedRTT: UInt32,
                maxRTT: UInt32, receiveRTT: UInt32, congestionWindowMin: UInt32, congestionWindowMax: UInt32,
                sendMSS: UInt32, pathMTU: UInt32, peerWindowMin: UInt32?, deliveryRateMax: UInt64?,
                deliveryRateMedian: UInt64?, peerWindowMedian: UInt32? = nil, zeroWindowShare: Double? = nil, busy: UInt64?, receiveWindowLimited: UInt64?, sendBufferLimited: UInt64?,
                samples: [TCPSample]) {
        self.span = span
        self.bytesSent = bytesSent
        self.bytesAcked = bytesAcked
        self.bytesReceived = bytesReceived
        self.bytesRetransmitted = bytesRetransmitted
        self.segmentsRetransmitted = segmentsRetransmitted
        self.outOfOrderPacketsIn = outOfOrderPacketsIn
        self.minRTT = minRTT
        self.smoothedRTT = smoothedRTT
        self.maxRTT = maxRTT
        self.receiveRTT = receiveRTT
        self.congestionWindowMin = congestionWindowMin
        self.congestionWindowMax = congestionWindowMax
        self.sendMSS = sendMSS
        self.pathMTU = pathMTU
        self.peerWindowMin = peerWindowMin
        self.deliveryRateMax = deliveryRateMax
        self.deliveryRateMedian = deliveryRateMedian
        self.peerWindowMedian = peerWindowMedian
        self.zeroWindowShare = zeroWindowShare
        self.busy = busy
        self.receiveWindowLimited = receiveWindowLimited
        self.sendBufferLimited = sendBufferLimited
        self.samples = samples
    }

    /// How much the client's send buffer held the sender back, judged from the samples (the kernel's own
    /// `sendBufferLimited` stopwatch misses it when the buffer holds a segment or two in flight and nothing waits).
    public struct BufferBound: Sendable, Equatable {
        /// The share of the samples with data in flight in which the buffer was the limit.
        public var share: Double
        /// The median segments in flight in those samples.
        public var segmentsInFlight: UInt32
        /// The median congestion window in those samples, segments.
        public var congestionWindow: UInt32
    }

    /// The buffer's hold on the sender: a sample counts when everything written was sent (nothing waits unsent),
    /// the bytes in flight fill at least half the socket's send buffer, both the congestion window (at least
    /// twice the segments in flight) and the peer's window (room for another segment) would have allowed more, and
    /// the bytes in flight were not waiting in a queue on the path (`queuedOnThePath`): a full link keeps a queue
    /// whatever the buffer, and more bytes in flight would only lengthen it.
    /// Nil without the send buffer's size, the unsent count (4.6) or a sample with data in flight.
    public var bufferBound: BufferBound? {
        guard let sendBuffer, sendBuffer > 0, sendMSS > 0 else { return nil }
        let mss = UInt64(sendMSS)
        let inFlight = samples.filter { $0.unacked > 0 && $0.notSent != nil }
        guard !inFlight.isEmpty else { return nil }
        let bound = inFlight.filter { sample in
            let bytes = UInt64(sample.unacked) * mss
            let windowRoom = sample.peerWindow.map { bytes + mss <= UInt64($0) } ?? true
            return sample.notSent == 0 && bytes * 2 >= UInt64(sendBuffer)
                && sample.unacked * 2 <= sample.congestionWindow && windowRoom && !queuedOnThePath(sample)
        }
        let held = bound.map(\.unacked).sorted()
        let windows = bound.map(\.congestionWindow).sorted()
        return BufferBound(share: Double(bound.count) / Double(inFlight.count),
                           segmentsInFlight: held.isEmpty ? 0 : held[held.count / 2],
                           congestionWindow: windows.isEmpty ? 0 : windows[windows.count / 2])
    }

    /// True when a sample's bytes in flight waited in a queue on the path: at least two segments in flight (so
    /// the receiver acknowledges at once rather than delaying its ACK for a lone segment) and a round trip at
    /// least twice the connection's minimum and at least `queueDelayFloor` µs above it. A small buffer on a path
    /// that is not full sees round trips near the minimum; on a full link the same bytes queue at its bottleneck.
    public func queuedOnThePath(_ sample: TCPSample) -> Bool {
        guard let minRTT, minRTT > 0, sample.unacked >= 2 else { return false }
        return UInt64(sample.rtt) >= 2 * UInt64(minRTT) && sample.rtt - minRTT >= Self.queueDelayFloor
    }

    /// The least queueing delay (µs) taken as a queue on the path rather than scheduling noise: 1 ms.
    public static let queueDelayFloor: UInt32 = 1_000

    /// The share of the bytes sent that were retransmissions, a crude loss rate; nil when nothing was sent.
    public var retransmittedShare: Double? {
        guard let sent = bytesSent, sent > 0, let retransmitted = bytesRetransmitted else { return nil }
        return Double(retransmitted) / Double(sent)
    }

    /// `now - then` for a counter, or nil when the kernel lacks it; 0 if it went backwards (a new socket).
    static func delta<T: FixedWidthInteger>(_ now: T?, _ then: T?) -> T? {
        guard let now, let then else { return nil }
        return now >= then ? now - then : 0
    }

    /// Gathers the snapshots of one transfer, keeping a bounded number of samples.
    ///
    /// A snapshot becomes a sample only once a later one came (the last is made a sample by `finish()`). The first
    /// snapshot's sample is made only when a third snapshot needs the array, so a transfer shorter than one sampling
    /// interval (a first and a last snapshot) keeps no array while it runs: two stores here and one array of two
    /// samples at the end.
    public struct Builder: Sendable {
        /// The most samples kept per transfer: beyond it every other one is dropped and the stride doubles.
        public static let sampleLimit = 64

        /// The first and the last snapshot; meaningful once `count` > 0.
        private var first: TCPInfo?
        private var last: TCPInfo?
        private var firstAt: Int64 = 0
        private var lastAt: Int64 = 0
        private var maxRTT: UInt32 = 0
        private var cwndMin = UInt32.max
        private var cwndMax: UInt32 = 0
        private var peerWindowMin: UInt32?
        private var deliveryRateMax: UInt64?
        /// The samples of the snapshots before the last (every `stride`-th of them); empty until a third snapshot
        /// came (the first one's sample is then made from `first`).
        private var samples: [TCPSample] = []
        private var sendBuffer: UInt32?
        private var receiveBuffer: UInt32?
        /// The receive queue read beside the first and the last snapshot (nil: not read).
        private var firstQueue: UInt32?
        private var lastQueue: UInt32?
        private var receiveRTTMin: UInt32?
        private var receiveSSThresholdMax: UInt32 = 0
        /// Only every `stride`-th snapshot becomes a sample (doubles each time the samples are thinned).
        private var stride = 1
        /// Snapshots added.
        private var count = 0

        public init() {}

        /// The last snapshot added.
        public var lastSnapshot: TCPInfo? { last }

        /// True until a snapshot is added.
        public var isEmpty: Bool { count == 0 }

        /// Notes a reading of the socket's send buffer (`SO_SNDBUF`, bytes); the largest is kept.
        public mutating func noteSendBuffer(_ bytes: Int) {
            let value = UInt32(clamping: bytes)
            sendBuffer = max(sendBuffer ?? 0, value)
        }

        /// Notes a reading of the socket's receive buffer (`SO_RCVBUF`, bytes); the largest is kept.
        public mutating func noteReceiveBuffer(_ bytes: Int) {
            let value = UInt32(clamping: bytes)
            receiveBuffer = max(receiveBuffer ?? 0, value)
        }

        /// Adds a snapshot taken at `at` (µs, any monotonic origin shared by the transfer's snapshots), with the
        /// receive queue read beside it (SIOCINQ, bytes; nil when not read).
        public mutating func add(_ info: TCPInfo, at: Int64, receiveQueue: Int? = nil) {
            let queue = receiveQueue.map { UInt32(clamping: $0) }
            if count == 0 {
                first = info
                firstAt = at
                firstQueue = queue
            } else if count > 1, let previous = last, let first, (count - 1) % stride == 0 {
                // The snapshot before this one is no longer the last: it becomes a sample if its turn came (after the
                // first one's, made now: the first snapshot is always a sample).
                if samples.isEmpty {
                    samples.reserveCapacity(4)
                    samples.append(TCPSample(first, at: 0, first: first, receiveQueue: firstQueue))
                }
                keep(TCPSample(previous, at: lastAt - firstAt, first: first, receiveQueue: lastQueue))
            }
            count += 1
            last = info
            lastAt = at
            lastQueue = queue
            if info.receiveRTT > 0 { receiveRTTMin = min(receiveRTTMin ?? .max, info.receiveRTT) }
            if info.receiveSSThreshold > receiveSSThresholdMax { receiveSSThresholdMax = info.receiveSSThreshold }
            let rtt = info.rtt
            let cwnd = info.congestionWindow
            if rtt > maxRTT { maxRTT = rtt }
            if cwnd < cwndMin { cwndMin = cwnd }
            if cwnd > cwndMax { cwndMax = cwnd }
            if let window = info.sendWindow { peerWindowMin = min(peerWindowMin ?? .max, window) }
            if let rate = info.deliveryRate { deliveryRateMax = max(deliveryRateMax ?? 0, rate) }
        }

        /// Appends a sample, thinning the samples to every other one (and doubling the stride) past `sampleLimit`.
        private mutating func keep(_ sample: TCPSample) {
            samples.append(sample)
            if samples.count > Self.sampleLimit {
                var thinned: [TCPSample] = []
                thinned.reserveCapacity(Self.sampleLimit / 2 + 2)
                for i in Swift.stride(from: 0, to: samples.count, by: 2) { thinned.append(samples[i]) }
                samples = thinned
                stride *= 2
            }
        }

        /// The facts of the snapshots added, or nil when there were none; the samples move out of the builder.
        /// `keepingSamples` false leaves them out of the facts (every other figure is the same): a transfer of two
        /// snapshots then makes no array at all.
        public mutating func finish(keepingSamples: Bool = true) -> TCPFacts? {
            guard count > 0, let first, let last else { return nil }
            // The last snapshot is always a sample: the end of the transfer is worth drawing. Taken in its turn it
            // may thin the samples first, as any other; out of turn it is added at the end.
            var kept: [TCPSample] = []
            let window: (median: UInt64?, count: Int, zeros: Int)
            let rate: (median: UInt64?, count: Int, zeros: Int)
            let receive: ReceiveSide
            if count <= 2 {
                // No array yet: the first snapshot (when it is not the last) and the last; their samples are made only
                // to be kept (a sample's window and rate are its snapshot's).
                let start = count == 2 ? first : nil
                window = Self.median(start.flatMap(Self.peerWindow), Self.peerWindow(last))
                rate = Self.median(start.flatMap(Self.rate), Self.rate(last))
                let end = TCPSample(last, at: lastAt - firstAt, first: first, receiveQueue: lastQueue)
                let begin = count == 2 ? TCPSample(first, at: 0, first: first, receiveQueue: firstQueue) : nil
                receive = ReceiveSide(begin, end, mss: last.receiveMSS)
                if keepingSamples { kept = begin.map { [$0, end] } ?? [end] }
            } else {
                let end = TCPSample(last, at: lastAt - firstAt, first: first, receiveQueue: lastQueue)
                if (count - 1) % stride == 0 { keep(end) } else { samples.append(end) }
                window = Self.median(of: samples, Self.peerWindow)
                rate = Self.median(of: samples, Self.rate)
                receive = ReceiveSide(samples, mss: last.receiveMSS)
                if keepingSamples { kept = samples }
                samples = []
            }
            var facts = TCPFacts(
                span: lastAt - firstAt,
                bytesSent: delta(last.bytesSent, first.bytesSent),
                bytesAcked: delta(last.bytesAcked, first.bytesAcked),
                bytesReceived: delta(last.bytesReceived, first.bytesReceived),
                bytesRetransmitted: delta(last.bytesRetrans, first.bytesRetrans),
                segmentsRetransmitted: delta(last.totalRetrans, first.totalRetrans) ?? 0,
                outOfOrderPacketsIn: delta(last.outOfOrderPacketsIn, first.outOfOrderPacketsIn),
                minRTT: last.minRTT, smoothedRTT: last.rtt, maxRTT: maxRTT, receiveRTT: last.receiveRTT,
                congestionWindowMin: cwndMin, congestionWindowMax: cwndMax, sendMSS: last.sendMSS,
                pathMTU: last.pathMTU, peerWindowMin: peerWindowMin, deliveryRateMax: deliveryRateMax,
                deliveryRateMedian: rate.median,
                peerWindowMedian: window.median.map { UInt32(truncatingIfNeeded: $0) },
                zeroWindowShare: window.count == 0 ? nil : Double(window.zeros) / Double(window.count),
                busy: delta(last.busyTime, first.busyTime),
                receiveWindowLimited: delta(last.receiveWindowLimited, first.receiveWindowLimited),
                sendBufferLimited: delta(last.sendBufferLimited, first.sendBufferLimited),
                samples: kept)
            facts.sendBuffer = sendBuffer
            facts.receiveBuffer = receiveBuffer
            facts.receiveWindowMedian = receive.windowMedian
            facts.receiveWindowMax = receive.windowMax
            facts.receiveRTTMedian = receive.rttMedian
            facts.receiveQueueShare = receive.queueShare
            facts.burstShare = receive.burstShare
            facts.receiveRTTMin = receiveRTTMin
            facts.receiveSSThresholdMax = receiveSSThresholdMax
            facts.receiveSpace = last.receiveSpace
            return facts
        }

        /// The receive side's figures of the samples: the advertised window's median and largest value, the median
        /// measured receive RTT, and the share of the queue readings that held at least a segment (`mss`).
        struct ReceiveSide {
            var windowMedian: UInt32?
            var windowMax: UInt32?
            var rttMedian: UInt32?
            var queueShare: Double?
            var burstShare: Double?

            init(_ samples: [TCPSample], mss: UInt32) {
                let windows = samples.compactMap(\.receiveWindow).sorted()
                windowMedian = windows.isEmpty ? nil : windows[windows.count / 2]
                windowMax = windows.last
                let rtts = samples.compactMap(\.receiveRTT).filter { $0 > 0 }.sorted()
                rttMedian = rtts.isEmpty ? nil : rtts[rtts.count / 2]
                let queues = samples.compactMap(\.receiveQueue)
                queueShare = queues.isEmpty ? nil
                    : Double(queues.filter { $0 >= max(mss, 1) }.count) / Double(queues.count)
                burstShare = Self.burstShare(samples, mss: mss, receiveRTT: rttMedian)
            }

            /// The share of the samples between the body's first and last arrival (a sample with bytes received
            /// since the first snapshot and more to come) whose time since the last arrival was at least 1.5 times a
            /// segment's time at the average rate, a fifth of the median receive RTT (bursts a receive RTT apart
            /// leave gaps of half of it on average; a queue leaves none) and 1 ms; nil without two such samples.
            /// The kernel counts that time in clock ticks (4 ms at HZ=250), so a steady flow still shows a tick now
            /// and then; a gap of two ticks or more is a pause. A flow of fewer than two segments a receive RTT (a
            /// paced sender on loopback, whose 64 KiB segments come one at a time) arrives a segment at a time: no
            /// flow held by a queue does that (its congestion window is two segments or more), so its pauses count
            /// from the fifth of the receive RTT and 1 ms alone.
            static func burstShare(_ samples: [TCPSample], mss: UInt32, receiveRTT: UInt32?) -> Double? {
                guard let last = samples.last, let total = last.received, total > 0, last.at > 0, mss > 0 else { return nil }
                let segmentMillis = Double(mss) / (Double(total) / Double(last.at)) / 1000
                let rttMillis = Double(receiveRTT ?? 0) / 1000
                let segmentAtATime = rttMillis > 0 && rttMillis < 2 * segmentMillis
                let gapMillis = max(1, segmentAtATime ? 0 : 1.5 * segmentMillis, rttMillis / 5)
                let during = samples.dropLast().filter { ($0.received ?? 0) > 0 && ($0.received ?? 0) < total }
                let gaps = during.compactMap(\.sinceReceived)
                guard gaps.count >= 2 else { return nil }
                return Double(gaps.filter { Double($0) >= gapMillis }.count) / Double(gaps.count)
            }

            /// The figures of at most two samples, without an array (a short transfer's first and last).
            init(_ a: TCPSample?, _ b: TCPSample, mss: UInt32) {
                func upper(_ x: UInt32?, _ y: UInt32?) -> UInt32? { x.map { max($0, y ?? 0) } ?? y }
                windowMedian = upper(a?.receiveWindow, b.receiveWindow)
                windowMax = windowMedian
                rttMedian = upper(a?.receiveRTT.flatMap { $0 > 0 ? $0 : nil }, b.receiveRTT.flatMap { $0 > 0 ? $0 : nil })
                let queues = [a?.receiveQueue, b.receiveQueue]
                let read = queues.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
                let held = queues.reduce(0) { $0 + (($1 ?? 0) >= max(mss, 1) ? 1 : 0) }
                queueShare = read == 0 ? nil : Double(held) / Double(read)
            }
        }

        private func delta<T: FixedWidthInteger>(_ now: T?, _ then: T?) -> T? { TCPFacts.delta(now, then) }

        /// A sample's peer window, for its median.
        private static func peerWindow(_ sample: TCPSample) -> UInt64? { sample.peerWindow.map { UInt64($0) } }
        /// A sample's delivery rate when the sender was not app-limited, for its median.
        private static func rate(_ sample: TCPSample) -> UInt64? {
            sample.appLimited == true ? nil : sample.deliveryRate
        }
        /// A snapshot's peer window, as its sample's (`TCPSample.init(_:at:first:)`).
        private static func peerWindow(_ info: TCPInfo) -> UInt64? { info.sendWindow.map { UInt64($0) } }
        /// A snapshot's delivery rate when the sender was not app-limited, as its sample's.
        private static func rate(_ info: TCPInfo) -> UInt64? {
            info.deliveryRateAppLimited == true ? nil : info.deliveryRate
        }

        /// The upper median of at most two values (nil ones skipped), how many there were and how many were 0.
        static func median(_ a: UInt64?, _ b: UInt64?) -> (median: UInt64?, count: Int, zeros: Int) {
            switch (a, b) {
            case (nil, nil): return (nil, 0, 0)
            case let (x?, nil), let (nil, x?): return (x, 1, x == 0 ? 1 : 0)
            case let (x?, y?): return (max(x, y), 2, (x == 0 ? 1 : 0) + (y == 0 ? 1 : 0))
            }
        }

        /// The upper median of the values `value` gives (nil ones skipped), how many there were and how many were 0,
        /// sorted in scratch space on the stack (at most `sampleLimit + 1` samples).
        static func median(of samples: [TCPSample], _ value: (TCPSample) -> UInt64?)
            -> (median: UInt64?, count: Int, zeros: Int) {
            // A short transfer's two samples need no sort.
            if samples.count <= 2 {
                return median(samples.first.flatMap(value), samples.count == 2 ? value(samples[1]) : nil)
            }
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: max(samples.count, 1)) { scratch in
                var count = 0
                for sample in samples {
                    if let v = value(sample) {
                        scratch[count] = v
                        count += 1
                    }
                }
                guard count > 0 else { return (nil, 0, 0) }
                var values = UnsafeMutableBufferPointer(rebasing: scratch[0..<count])
                values.sort()
                return (values[count / 2], count, values.prefix { $0 == 0 }.count)
            }
        }
    }
}

extension TCPFacts: CompactJSONWritable {
    /// Through the one writer of the kernel's facts (`KernelFactsJSONWriter`), samples included.
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        KernelFactsJSONWriter.append(self, samples: true, to: &bytes)
    }

    public func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
    }
}
