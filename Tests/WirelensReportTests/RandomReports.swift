import Foundation
import WirelensCore
import WirelensTestSupport

/// Seeded random report values that reach every field present and absent: the inputs on which the hand-written
/// JSON writers are read back (`TaskJSONWriterTests`, `KernelFactsJSONWriterTests`, `ConnectionRecordJSONWriterTests`).
enum RandomReports {
    /// The values of a JSON text as Foundation's JSONSerialization reads them (objects compare by member, in any
    /// order; numbers by value): the reader the byte writers are checked with.
    static func parsed(_ bytes: [UInt8]) throws -> NSObject? {
        try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? NSObject
    }

    static func maybe<T>(_ value: T, _ g: inout SplitMix64) -> T? { Bool.random(using: &g) ? value : nil }

    static func facts(_ g: inout SplitMix64) -> TCPFacts {
        let samples = (0..<Int.random(in: 0...5, using: &g)).map { i in
            TCPSample(at: Int64(i) * 100_000, rtt: .random(in: 0...500_000, using: &g),
                      congestionWindow: .random(in: 1...10_000, using: &g),
                      deliveryRate: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g),
                      appLimited: maybe(Bool.random(using: &g), &g), peerWindow: maybe(.random(in: 0...UInt32.max, using: &g), &g),
                      unacked: .random(in: 0...1000, using: &g), notSent: maybe(.random(in: 0...1 << 20, using: &g), &g),
                      acked: maybe(.random(in: 0...UInt64(1) << 50, using: &g), &g),
                      received: maybe(.random(in: 0...UInt64.max, using: &g), &g),
                      receiveRTT: maybe(.random(in: 0...UInt32.max, using: &g), &g),
                      receiveWindow: maybe(.random(in: 0...UInt32.max, using: &g), &g),
                      receiveQueue: maybe(0, &g), sinceReceived: maybe(.random(in: 0...UInt32.max, using: &g), &g))
        }
        var f = TCPFacts(
            span: .random(in: 0...Int64(1) << 40, using: &g), bytesSent: maybe(.random(in: 0...UInt64.max, using: &g), &g),
            bytesAcked: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), bytesReceived: maybe(7, &g),
            bytesRetransmitted: maybe(.random(in: 0...1 << 30, using: &g), &g), segmentsRetransmitted: .random(in: 0...UInt32.max, using: &g),
            outOfOrderPacketsIn: maybe(3, &g), minRTT: maybe(.random(in: 0...UInt32.max, using: &g), &g),
            smoothedRTT: .random(in: 0...UInt32.max, using: &g), maxRTT: 1, receiveRTT: 0, congestionWindowMin: 10,
            congestionWindowMax: 80, sendMSS: 1448, pathMTU: 1500, peerWindowMin: maybe(65535, &g),
            deliveryRateMax: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), deliveryRateMedian: maybe(12, &g),
            peerWindowMedian: maybe(0, &g), zeroWindowShare: maybe(.random(in: 0...1, using: &g), &g),
            busy: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), receiveWindowLimited: maybe(5, &g),
            sendBufferLimited: maybe(0, &g), samples: samples)
        f.shared = Bool.random(using: &g)
        f.sendBuffer = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.handshakeRTT = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.receiveWindowMedian = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.receiveWindowMax = maybe(65535, &g)
        f.receiveSSThresholdMax = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.receiveSpace = maybe(0, &g)
        f.receiveRTTMin = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.receiveRTTMedian = maybe(40_000, &g)
        f.receiveBuffer = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.receiveQueueShare = maybe(.random(in: 0...1, using: &g), &g)
        f.burstShare = maybe(0.25, &g)
        return f
    }

    static func connection(_ g: inout SplitMix64) -> ConnectionRecord {
        let count = Int.random(in: 0...6, using: &g)
        let totals = TCPTotals(
            bytesSent: maybe(.random(in: 0...UInt64.max, using: &g), &g), bytesAcked: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g),
            bytesReceived: maybe(9, &g), bytesRetransmitted: maybe(0, &g), segmentsRetransmitted: .random(in: 0...UInt32.max, using: &g),
            dataSegmentsOut: maybe(.random(in: 0...UInt32.max, using: &g), &g), dataSegmentsIn: maybe(1, &g),
            outOfOrderPacketsIn: maybe(2, &g), minRTT: maybe(.random(in: 0...UInt32.max, using: &g), &g),
            smoothedRTT: .random(in: 0...UInt32.max, using: &g), busy: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g),
            receiveWindowLimited: maybe(3, &g), sendBufferLimited: maybe(0, &g))
        let verdict = ConnectionRecord.Verdict(
            verdict: Verdict.allCases.randomElement(using: &g) ?? .unknown, share: .random(in: 0...1, using: &g),
            transactions: .random(in: 1...1000, using: &g), example: diagnosis(&g))
        return ConnectionRecord(
            connectionId: maybe(.random(in: 0...100_000, using: &g), &g), localAddress: maybe("127.0.0.1", &g),
            localPort: .random(in: 0...65535, using: &g), remoteAddress: maybe("::1", &g),
            remotePort: maybe(.random(in: 0...65535, using: &g), &g), networkProtocolName: maybe(string(&g), &g),
            firstUsedAt: micros(&g), lastUsedAt: micros(&g), transactionCount: count + .random(in: 0...3, using: &g),
            transactions: (0..<count).map { _ in
                .init(task: .random(in: 0...1_000_000, using: &g), transaction: .random(in: 0...10, using: &g))
            },
            shared: Bool.random(using: &g), handshakeRTT: maybe(.random(in: 0...UInt32.max, using: &g), &g),
            pathMTU: maybe(65535, &g), totals: maybe(totals, &g), diagnosis: maybe(verdict, &g))
    }

    static func diagnosis(_ g: inout SplitMix64) -> Diagnosis {
        var e = Diagnosis.Evidence(direction: ["upload", "download", "none"].randomElement(using: &g) ?? "none")
        e.movingTime = maybe(.random(in: 0...Int64(1) << 40, using: &g), &g)
        e.receiveWindowLimitedShare = maybe(.random(in: 0...1, using: &g), &g)
        e.sendBufferLimitedShare = maybe(0.5, &g)
        e.bufferBoundShare = maybe(.random(in: 0...1, using: &g), &g)
        e.sendBuffer = maybe(8192, &g)
        e.segmentsInFlight = maybe(1, &g)
        e.segmentSize = maybe(65_483, &g)
        e.congestionWindow = maybe(18, &g)
        e.networkShare = maybe(.random(in: 0...1, using: &g), &g)
        e.idleShare = maybe(0, &g)
        e.wait = maybe(.random(in: 0...Int64(1) << 30, using: &g), &g)
        e.waitShare = maybe(.random(in: 0...1, using: &g), &g)
        e.handshakes = maybe(48_000, &g)
        e.rtt = maybe(.random(in: 0...1_000_000, using: &g), &g)
        e.minRTT = maybe(11, &g)
        e.receiveRTT = maybe(0, &g)
        e.roundTrips = maybe(.random(in: 0...1e6, using: &g), &g)
        e.retransmittedShare = maybe(1.0 / 3, &g)
        e.outOfOrderPacketsIn = maybe(31, &g)
        e.bodyRate = maybe(.random(in: 0...1e10, using: &g), &g)
        e.deliveryRate = maybe(1_300_000, &g)
        e.peerWindow = maybe(16_384, &g)
        e.zeroWindowShare = maybe(0.25, &g)
        e.windowCap = maybe(.random(in: 0...1e9, using: &g), &g)
        e.sharedConnection = Bool.random(using: &g)
        e.proxyHop = Bool.random(using: &g)
        e.reason = maybe("a \"quoted\" reason\n", &g)
        e.writeTime = maybe(.random(in: 0...Int64(1) << 40, using: &g), &g)
        e.writeShare = maybe(.random(in: 0...1, using: &g), &g)
        e.receiveWindow = maybe(131_072, &g)
        e.receiveBuffer = maybe(.random(in: 0...Int64(1) << 31, using: &g), &g)
        e.receiveWindowMax = maybe(.random(in: 0...Int64(1) << 31, using: &g), &g)
        e.receiveRTTMin = maybe(0, &g)
        e.receiveRTTMedian = maybe(.random(in: 0...1_000_000, using: &g), &g)
        e.windowFill = maybe(.random(in: 0...10, using: &g), &g)
        e.receiveQueueShare = maybe(0.5, &g)
        e.burstShare = maybe(.random(in: 0...1, using: &g), &g)
        e.confidence = maybe(.random(in: 0...1, using: &g), &g)
        e.host = maybe(host(&g), &g)
        e.nothingUnsentShare = maybe(.random(in: 0...1, using: &g), &g)
        e.inFlightMax = maybe(.random(in: 0...Int64(1) << 32, using: &g), &g)
        return Diagnosis(verdict: Verdict.allCases.randomElement(using: &g) ?? .unknown, evidence: e)
    }

    static func host(_ g: inout SplitMix64) -> HostFacts {
        var h = HostFacts(span: .random(in: 1...Int64(1) << 40, using: &g), cpuTime: .random(in: 0...Int64(1) << 40, using: &g),
                          cpuShare: .random(in: 0...2, using: &g))
        h.runQueueWait = maybe(.random(in: 0...Int64(1) << 40, using: &g), &g)
        h.runQueueShare = maybe(.random(in: 0...1, using: &g), &g)
        h.cpusAllowed = maybe(.random(in: 1...512, using: &g), &g)
        h.cgroup = maybe(string(&g), &g)
        h.cpuQuota = maybe(.random(in: 0.001...64, using: &g), &g)
        h.periods = maybe(.random(in: 0...1_000_000, using: &g), &g)
        h.throttledPeriods = maybe(.random(in: 0...1_000_000, using: &g), &g)
        h.throttledTime = maybe(.random(in: 0...Int64(1) << 40, using: &g), &g)
        h.machineBusyShare = maybe(.random(in: 0...1, using: &g), &g)
        h.peerOnThisMachine = Bool.random(using: &g)
        return h
    }

    /// A string drawn from pieces that need escaping in JSON (quotes, backslashes, control characters), non-ASCII
    /// text and plain text.
    static func string(_ g: inout SplitMix64) -> String {
        let pieces = ["a", "/", "path", "\"", "\\", "\n", "\t", "\r", "\u{01}", "\u{1F}", "é", "日本", "🙂", " ", "?q=1&b=2",
                      "\u{7F}", "</script>"]
        return (0..<Int.random(in: 0...8, using: &g)).map { _ in pieces.randomElement(using: &g) ?? "" }.joined()
    }

    /// A µs duration or offset: small, large, negative, beyond 2^50 (the millisecond writer's exact range).
    static func micros(_ g: inout SplitMix64) -> Int64 {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: 0
        case 1: .random(in: 0...999, using: &g)
        case 2: .random(in: -10_000_000...10_000_000, using: &g)
        case 3: .random(in: 0...Int64(1) << 40, using: &g)
        case 4: .random(in: (Int64(1) << 49)...(Int64(1) << 52), using: &g)
        default: .random(in: -(Int64(1) << 52)...(Int64(1) << 52), using: &g)
        }
    }

    static func transferError(_ g: inout SplitMix64) -> TransferError {
        TransferError(errorClass: ErrorClass.allCases.randomElement(using: &g) ?? .other,
                      curlCode: maybe(.random(in: 0...100, using: &g), &g), message: string(&g))
    }

    static func transaction(taskStart: Int64, _ g: inout SplitMix64) -> TransactionMetrics {
        var timeline = Timeline(fetchStart: taskStart + .random(in: -1_000...1_000_000, using: &g))
        let start = timeline.fetchStart
        func at(_ g: inout SplitMix64) -> Int64? { maybe(start + .random(in: -2_000...(Int64(1) << 36), using: &g), &g) }
        timeline.domainLookupStart = at(&g)
        timeline.domainLookupEnd = at(&g)
        timeline.connectStart = at(&g)
        timeline.connectEnd = at(&g)
        timeline.secureConnectionStart = at(&g)
        timeline.secureConnectionEnd = at(&g)
        timeline.requestStart = at(&g)
        timeline.requestEnd = at(&g)
        timeline.responseStart = at(&g)
        timeline.responseEnd = at(&g)
        let phases = Phases(queue: maybe(micros(&g), &g), dns: maybe(micros(&g), &g), connect: maybe(micros(&g), &g),
                            tls: maybe(micros(&g), &g), send: maybe(micros(&g), &g), wait: maybe(micros(&g), &g),
                            receive: maybe(micros(&g), &g), total: .random(in: 0...Int64(1) << 40, using: &g))
        let timers = CurlTimers(nameLookup: micros(&g), connect: micros(&g), appConnect: micros(&g),
                                preTransfer: micros(&g), startTransfer: micros(&g), total: micros(&g))
        var m = TransactionMetrics(
            kind: [TransactionKind.initial, .redirect, .retry].randomElement(using: &g) ?? .initial, url: "http://127.0.0.1/" + string(&g),
            method: ["GET", "PUT", "POST", "HEAD"].randomElement(using: &g) ?? "GET", timeline: timeline, phases: phases,
            reusedConnection: .random(using: &g), proxyConnection: .random(using: &g), curlTimers: timers)
        m.networkProtocolName = maybe(["http/1.1", "h2", "h3"].randomElement(using: &g) ?? "h2", &g)
        m.connectionId = maybe(.random(in: 0...Int(Int32.max), using: &g), &g)
        m.localAddress = maybe("127.0.0.1", &g)
        m.localPort = maybe(.random(in: 0...65535, using: &g), &g)
        m.remoteAddress = maybe("::1", &g)
        m.remotePort = maybe(.random(in: 0...65535, using: &g), &g)
        m.tlsVersion = maybe("TLSv1.3", &g)
        m.tlsCipher = maybe(string(&g), &g)
        m.alpn = maybe("h2", &g)
        m.statusCode = maybe(.random(in: 100...599, using: &g), &g)
        m.statusText = maybe(string(&g), &g)
        m.contentType = maybe(string(&g), &g)
        m.requestHeaderBytes = .random(in: 0...1 << 20, using: &g)
        m.requestBodyBytes = .random(in: 0...Int64(1) << 40, using: &g)
        m.responseHeaderBytes = .random(in: 0...1 << 20, using: &g)
        m.responseBodyBytes = .random(in: 0...Int64(1) << 40, using: &g)
        m.expectContinueWait = maybe(micros(&g), &g)
        m.retryWait = maybe(micros(&g), &g)
        m.retryAfter = maybe(Bool.random(using: &g) ? .max : micros(&g), &g)
        m.domainResolutionProtocol = maybe([DomainResolutionProtocol.udp, .tcp, .https].randomElement(using: &g) ?? .udp, &g)
        m.dohDuration = maybe(micros(&g), &g)
        m.responseHeaders = maybe((0..<Int.random(in: 0...4, using: &g)).map { _ in
            HeaderField(name: ["Server", "X-Odd", "Content-Type", "Set-Cookie"].randomElement(using: &g) ?? "Server",
                        value: string(&g))
        }, &g)
        m.error = maybe(transferError(&g), &g)
        m.tcp = maybe(facts(&g), &g)
        m.diagnosis = maybe(diagnosis(&g), &g)
        m.connectionOpened = at(&g)
        m.connectionClosed = at(&g)
        m.mptcp = maybe(multipath(&g), &g)
        return m
    }

    /// Multipath TCP facts: not negotiated, or up to three subflows with every optional present and absent.
    static func multipath(_ g: inout SplitMix64) -> MPTCPFacts {
        guard Bool.random(using: &g) else { return MPTCPFacts(negotiated: false, subflows: []) }
        let subflows = (0..<Int.random(in: 0...3, using: &g)).map { _ in
            var s = MPTCPSubflow(addresses: maybe(SubflowAddresses(localAddress: "198.18.1.1", localPort: .random(in: 1...65535, using: &g),
                                                                    remoteAddress: "::1", remotePort: 8080), &g),
                                 info: Fixture.tcpInfo(sent: .random(in: 0...1 << 40, using: &g),
                                                        rtt: .random(in: 0...UInt32.max, using: &g)),
                                 bodyShare: maybe(Double.random(in: 0...1, using: &g), &g))
            s.bytesReceived = maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g)
            s.verdict = maybe(Verdict.allCases[Int.random(in: 0..<Verdict.allCases.count, using: &g)], &g)
            return s
        }
        return MPTCPFacts(negotiated: true, subflows: subflows)
    }

    /// A task of up to four transactions.
    static func task(index: Int, _ g: inout SplitMix64) -> TaskRecord {
        let start = Int64.random(in: 0...Int64(4_102_444_800_000_000), using: &g)
        return TaskRecord(
            index: index, url: "http://127.0.0.1/" + string(&g), method: "GET", startedAt: start,
            endedAt: start + .random(in: -1_000...(Int64(1) << 40), using: &g),
            redirectCount: .random(in: 0...5, using: &g), retries: .random(in: 0...3, using: &g),
            statusCode: maybe(.random(in: 100...599, using: &g), &g), error: maybe(transferError(&g), &g),
            transactions: (0..<Int.random(in: 0...4, using: &g)).map { _ in transaction(taskStart: start, &g) })
    }
}
