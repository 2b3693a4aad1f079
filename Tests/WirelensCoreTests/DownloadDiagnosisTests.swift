import XCTest
@testable import WirelensCore

/// The download verdicts of `Diagnosis.of(_:)` (`Diagnosis+Download`) and every verdict's confidence
/// (`Diagnosis+Confidence`) on crafted facts, one condition each; the receive side of `TCPFacts.Builder` on
/// snapshots laid out as the kernel's `struct tcp_info`.
final class DownloadDiagnosisTests: XCTestCase {
    /// 8 MB in a 4 s receive phase: 2 MB/s.
    private static let body: Int64 = 8_000_000
    private static let phases = Phases(connect: 40_000, send: 100, wait: 41_000, receive: 4_000_000, total: 4_081_100)

    /// Facts of a download over a 40 ms path: the client's window (`window`, nil: not given by the kernel), the
    /// receive RTT's median, out-of-order arrivals and the samples' full receive queues as given.
    private func facts(window: UInt32? = 4 << 20, ssthresh: UInt32? = nil, receiveRTT: UInt32 = 41_000,
                       outOfOrder: UInt32 = 0, queueShare: Double? = 0, minRTT: UInt32? = 40_000,
                       shared: Bool = false, received: UInt64 = 8_000_000) -> TCPFacts {
        var f = TCPFacts(span: 4_000_000, bytesSent: 200, bytesAcked: 200, bytesReceived: received,
                         bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: outOfOrder,
                         minRTT: minRTT, smoothedRTT: 40_500, maxRTT: 41_000, receiveRTT: receiveRTT,
                         congestionWindowMin: 10, congestionWindowMax: 10, sendMSS: 1448, pathMTU: 1500,
                         peerWindowMin: 65536, deliveryRateMax: nil, deliveryRateMedian: nil, busy: 0,
                         receiveWindowLimited: 0, sendBufferLimited: 0, samples: [])
        f.receiveWindowMedian = window
        f.receiveWindowMax = window
        f.receiveSSThresholdMax = ssthresh
        f.receiveRTTMin = 40_000
        f.receiveRTTMedian = receiveRTT
        f.receiveQueueShare = queueShare
        f.receiveBuffer = 262_144
        f.shared = shared
        return f
    }

    private func download(_ tcp: TCPFacts?, writeTime: Int64 = 0, phases: Phases = phases,
                          body: Int64 = body) -> Diagnosis {
        Diagnosis.of(.init(phases: phases, requestBodyBytes: 0, responseBodyBytes: body, tcp: tcp, writeTime: writeTime))
    }

    /// 96 KiB over 40 ms allows 2.46 MB/s; the body came at 2 MB/s, 81% of it.
    func testABodyNearTheClientsWindowOverTheRTTIsTheClientWindow() throws {
        let d = download(facts(window: 98_304))
        XCTAssertEqual(d.verdict, .clientWindow, d.explanation)
        XCTAssertEqual(d.evidence.windowCap ?? 0, 98_304 / 0.040, accuracy: 1)
        XCTAssertEqual(d.evidence.windowFill ?? 0, 2_000_000 / (98_304 / 0.040), accuracy: 1e-9)
        XCTAssertEqual(d.evidence.receiveWindow, 98_304)
        XCTAssertEqual(d.evidence.receiveBuffer, 262_144)
        let confidence = try XCTUnwrap(d.evidence.confidence)
        XCTAssertEqual(confidence, ((2_000_000 / (98_304 / 0.040)) - Diagnosis.windowFillFloor) / 0.3, accuracy: 1e-9)
        XCTAssertTrue(d.explanation.contains("96.0 KiB"), d.explanation)
        let basis = try XCTUnwrap(d.basis)
        XCTAssertTrue(basis.contains("81% of the client's window"), basis)
        XCTAssertTrue(basis.contains("confidence 0.38"), basis)
    }

    /// A window the kernel's auto-tuning was still growing (slow start: its median a fraction of its largest) stays
    /// ahead of the sender: near it or not, it was not the limit.
    func testAWindowStillGrowingIsNotTheClientWindow() throws {
        var growing = facts(window: 98_304)
        growing.receiveWindowMax = 1_048_576
        let d = download(growing)
        XCTAssertEqual(d.verdict, .serverSend, d.explanation)
        XCTAssertEqual(d.evidence.receiveWindowMax, 1_048_576)
        let share = 98_304.0 / 1_048_576.0
        XCTAssertEqual(d.evidence.confidence ?? 0, (0.8 - share) / 0.8, accuracy: 1e-9)
        XCTAssertTrue(try XCTUnwrap(d.basis).contains("the window still growing"))
    }

    /// A receive RTT far above the minimum with data in bursts (gaps in most samples) measures the gaps between the
    /// sender's bursts, not a queue: the kernel times it from the timestamp the sender echoes.
    func testBurstsWithGapsAreNotAQueue() throws {
        var bursty = facts(receiveRTT: 20_000, minRTT: 40)
        bursty.receiveRTTMin = 9_000
        bursty.burstShare = 0.65
        let d = download(bursty)
        XCTAssertEqual(d.verdict, .serverSend, d.explanation)
        XCTAssertTrue(try XCTUnwrap(d.basis).contains("bursts with gaps (65% of the samples): no queue"))
        bursty.burstShare = 0.1
        XCTAssertEqual(download(bursty).verdict, .network, "steady arrivals: a queue")
    }

    /// The builder's share of bursts: samples taken while the body came whose time since the last arrival was at
    /// least twice a segment's time, a fifth of the receive RTT and 1 ms.
    func testTheBurstShareCountsGapsWhileTheBodyCame() {
        func sample(_ at: Int64, _ received: UInt64, since: UInt32, rtt: UInt32 = 20_000) -> TCPSample {
            TCPSample(at: at, rtt: 100, congestionWindow: 10, received: received, receiveRTT: rtt, sinceReceived: since)
        }
        // 400 KB/s: a segment every 3.6 ms, so a gap is at least 5.4 ms; the receive RTT of 20 ms asks 4 ms.
        let samples = [sample(0, 0, since: 0), sample(100_000, 40_000, since: 8), sample(200_000, 80_000, since: 12),
                       sample(300_000, 120_000, since: 5), sample(400_000, 160_000, since: 16),
                       sample(500_000, 200_000, since: 0)]
        XCTAssertEqual(TCPFacts.Builder.ReceiveSide(samples, mss: 1448).burstShare, 0.75,
                       "three of the four samples while the body came (not the first, not the last)")
    }

    /// nginx's `limit_rate 512k` on loopback, as the kernel showed it: 64 KiB segments (loopback's MSS) one every
    /// 125 ms, the receive RTT (the time from the client's ACK to the data echoing it) 62-101 ms: the server's pauses,
    /// since it sends a segment a receive RTT. Counted against 1.5 segment times (182 ms) no pause showed, the 88 ms
    /// median passed for a queue and the verdict was `network`; a segment at a time, the pauses show.
    func testASenderPacedASegmentAtATimeIsNotAQueue() throws {
        let since: [UInt32] = [36, 16, 116, 88, 64, 36, 12, 112, 88, 64, 40, 12, 116, 96, 72, 44, 20, 124, 96]
        var samples = [TCPSample(at: 0, rtt: 27, congestionWindow: 10, received: 0, receiveRTT: 0, sinceReceived: 0)]
        for (i, gap) in since.enumerated() {
            samples.append(TCPSample(at: Int64(i + 1) * 100_000, rtt: 27, congestionWindow: 10,
                                     received: UInt64(i + 1) * 52_000, receiveRTT: 88_291, sinceReceived: gap))
        }
        samples.append(TCPSample(at: 1_946_601, rtt: 27, congestionWindow: 10, received: 1_048_829, receiveRTT: 100_613,
                                 sinceReceived: 0))
        let share = try XCTUnwrap(TCPFacts.Builder.ReceiveSide(samples, mss: 65_483).burstShare)
        XCTAssertEqual(share, 16.0 / 19.0, accuracy: 1e-9, "the gaps of at least a fifth of the 88 ms receive RTT")
        var paced = facts(window: 95_232, receiveRTT: 88_291, minRTT: 26, received: 1_048_829)
        paced.receiveRTTMin = 62_000
        paced.burstShare = share
        let phases = Phases(connect: 100, send: 10, wait: 500, receive: 1_946_000, total: 1_946_610)
        XCTAssertEqual(download(paced, phases: phases, body: 1_048_829).verdict, .serverSend)
        // The same gaps from 1448-byte segments at that rate (a segment every 2.7 ms) are still a fifth of the RTT.
        XCTAssertEqual(TCPFacts.Builder.ReceiveSide(samples, mss: 1448).burstShare ?? 0, 16.0 / 19.0, accuracy: 1e-9)
    }

    /// A 4 MiB window allows 105 MB/s over 40 ms: a body at 2 MB/s with no queue and no loss was the server's pace.
    func testAnOpenWindowWithoutQueueOrLossIsTheServerSending() throws {
        let d = download(facts())
        XCTAssertEqual(d.verdict, .serverSend, d.explanation)
        XCTAssertLessThan(d.evidence.windowFill ?? 1, 0.02)
        XCTAssertGreaterThan(d.evidence.confidence ?? 0, 0.97)
        let basis = try XCTUnwrap(d.basis)
        XCTAssertTrue(basis.contains("1.0x the minimum: no queue"), basis)
        XCTAssertTrue(basis.contains("no out-of-order arrivals"), basis)
    }

    func testAReceiveRTTWellAboveItsMinimumIsTheNetwork() throws {
        let d = download(facts(receiveRTT: 120_000))
        XCTAssertEqual(d.verdict, .network, d.explanation)
        XCTAssertEqual(d.evidence.receiveRTTMedian, 120_000)
        // 3x the minimum: the queue passed 1.5x by 1.5, all of the way to full confidence.
        XCTAssertEqual(d.evidence.confidence ?? 0, 1, accuracy: 1e-9)
        XCTAssertTrue(try XCTUnwrap(d.basis).contains("3.0x the minimum: a queue"))
        XCTAssertTrue(d.explanation.contains("a queue on the way in"), d.explanation)
        // Within 1 ms of the minimum is no queue, whatever the ratio (a loopback path's RTT of tens of µs).
        var fast = facts(receiveRTT: 900, minRTT: 300)
        fast.receiveRTTMin = 300
        XCTAssertEqual(download(fast).verdict, .serverSend)
    }

    func testOutOfOrderArrivalsAreTheNetworkEvenWithoutAWindow() {
        let d = download(facts(outOfOrder: 12))
        XCTAssertEqual(d.verdict, .network)
        XCTAssertEqual(d.evidence.confidence, 1)
        XCTAssertTrue(d.explanation.contains("12 packets arrived out of order"), d.explanation)
        XCTAssertEqual(download(facts(window: nil, outOfOrder: 3)).verdict, .network)
    }

    /// 3 s of the 4 s receive phase inside the body's writes: the client did not read, whatever the window.
    func testWritesThatTookTheTimeAreTheClient() throws {
        let d = download(facts(window: 98_304), writeTime: 3_000_000)
        XCTAssertEqual(d.verdict, .client, d.explanation)
        XCTAssertEqual(d.evidence.writeTime, 3_000_000)
        XCTAssertEqual(d.evidence.writeShare ?? 0, 0.75, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.confidence ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertTrue(d.explanation.contains("The client did not read"), d.explanation)
        XCTAssertEqual(download(facts(queueShare: 0.8)).verdict, .client, "unread data queued in most samples")
        XCTAssertEqual(download(facts(), writeTime: 1_000_000).verdict, .serverSend, "a quarter is not the client")
    }

    /// A kernel before 6.3 has no tcpi_rcv_wnd: the window is the kernel's ceiling on it (tcpi_rcv_ssthresh), and
    /// without either the verdict is unknown, naming the field, never a window of 0.
    func testAKernelWithoutTheReceiveWindowFallsBackToItsCeilingOrSaysSo() {
        let old = download(facts(window: nil, ssthresh: 98_304))
        XCTAssertEqual(old.verdict, .clientWindow)
        XCTAssertEqual(old.evidence.receiveWindow, 98_304)
        let none = download(facts(window: nil, ssthresh: 0))
        XCTAssertEqual(none.verdict, .unknown)
        XCTAssertEqual(none.evidence.reason, .noReceiveWindow)
        XCTAssertNil(none.evidence.receiveWindow)
        XCTAssertNil(none.evidence.confidence, "unknown carries no confidence")
        XCTAssertNil(none.basis)
        let noMinimum = download(facts(minRTT: nil))
        XCTAssertEqual(noMinimum.verdict, .unknown)
        XCTAssertEqual(noMinimum.evidence.reason, .noMinimumRTT)
    }

    /// On a connection shared with other streams the window's fill is the connection's: 16 MB over its 4 s span
    /// fill a 96 KiB window's 2.46 MB/s more than this stream's 1 MB/s does.
    func testASharedConnectionIsJudgedByTheConnectionsBytes() {
        let d = download(facts(window: 98_304, shared: true, received: 10_000_000), body: 4_000_000)
        XCTAssertTrue(d.evidence.sharedConnection)
        XCTAssertEqual(d.evidence.windowFill ?? 0, 2_500_000 / (98_304 / 0.040), accuracy: 1e-9)
        XCTAssertEqual(d.verdict, .clientWindow)
        XCTAssertTrue(d.explanation.contains("shared with other transfers"), d.explanation)
    }

    /// Through a proxy the socket's facts are the hop to it: the verdict stands on them and says so.
    func testAProxyHopSaysItsFactsAreTheHops() {
        let d = Diagnosis.of(.init(phases: Self.phases, requestBodyBytes: 0, responseBodyBytes: Self.body,
                                   tcp: facts(), throughProxy: true))
        XCTAssertEqual(d.verdict, .serverSend)
        XCTAssertTrue(d.evidence.proxyHop)
        XCTAssertTrue(d.explanation.contains("hop to the proxy"), d.explanation)
    }

    /// A reused connection's first snapshot carries the earlier transfer's counters: bytes received and out-of-order
    /// packets are this transfer's differences, and its receive RTT minimum comes from its own snapshots.
    func testAReusedConnectionsReceiveSideIsThisTransfersOwn() throws {
        var builder = TCPFacts.Builder()
        builder.add(try Self.snapshot(receiveRTT: 9_000, receiveWindow: 65_000, received: 5_000_000, outOfOrder: 40), at: 0)
        builder.add(try Self.snapshot(receiveRTT: 41_000, receiveWindow: 65_000, received: 6_000_000, outOfOrder: 43),
                    at: 100_000, receiveQueue: 0)
        builder.add(try Self.snapshot(receiveRTT: 42_000, receiveWindow: 65_000, received: 7_000_000, outOfOrder: 43),
                    at: 200_000, receiveQueue: 0)
        let facts = try XCTUnwrap(builder.finish())
        XCTAssertEqual(facts.bytesReceived, 2_000_000)
        XCTAssertEqual(facts.outOfOrderPacketsIn, 3)
        XCTAssertEqual(facts.samples.map(\.received), [0, 1_000_000, 2_000_000])
        XCTAssertEqual(facts.receiveRTTMedian, 41_000, "the earlier transfer's estimate is the first sample's only")
    }

    /// A 2 KB GET across a 60 ms path: the connect and the request's round trip are the time, not the server.
    func testASmallGetAcrossALongPathIsRoundTrips() throws {
        let phases = Phases(connect: 60_200, send: 50, wait: 61_000, receive: 150, total: 121_400)
        var tcp = facts(minRTT: 60_000)
        tcp.smoothedRTT = 60_100
        let d = download(tcp, phases: phases, body: 2_000)
        XCTAssertEqual(d.verdict, .roundTrips, d.explanation)
        XCTAssertGreaterThan(d.evidence.waitShare ?? 0, 0.5, "the wait alone is half the total")
        XCTAssertGreaterThan(d.evidence.confidence ?? 0, 0.9)
    }

    /// A lost SYN/ACK stretches the handshake to a second, and the client's smoothed RTT (it sent only its request)
    /// rests on that: 3 MB in 0.5 s with out-of-order arrivals is told against the receive RTT the kernel measured over
    /// the body (2 ms), so it is `network`, not a body that moved within a few round trips.
    func testAHandshakeStretchedByALostSynAckDoesNotMakeABodyShort() throws {
        let phases = Phases(connect: 1_013_000, send: 50, wait: 4_000, receive: 501_000, total: 1_518_050)
        var tcp = facts(window: nil, receiveRTT: 2_125, outOfOrder: 1_252, minRTT: 50)
        tcp.smoothedRTT = 886_381
        tcp.receiveRTT = 2_125
        let d = download(tcp, phases: phases, body: 3_000_000)
        XCTAssertEqual(d.verdict, .network, d.explanation)
        XCTAssertEqual(d.evidence.rtt, 886_381, "the kernel's smoothed RTT stays in the evidence as it was")
        tcp.receiveRTT = 0
        XCTAssertEqual(download(tcp, phases: phases, body: 3_000_000).verdict, .roundTrips,
                       "without a receive RTT the smoothed one is all there is")
    }

    /// A wait of 600 ms on the same path is the server's: the round trip taken out, 90% of the total is still left.
    func testAWaitLongerThanItsRoundTripIsTheServerThinking() throws {
        let phases = Phases(connect: 60_200, send: 50, wait: 660_000, receive: 150, total: 720_400)
        let d = download(facts(minRTT: 60_000), phases: phases, body: 2_000)
        XCTAssertEqual(d.verdict, .serverThink)
        XCTAssertEqual(d.evidence.confidence ?? 0, ((660_000.0 - 60_000) / 720_400 - 0.5) * 2, accuracy: 1e-9)
        XCTAssertTrue(try XCTUnwrap(d.basis).contains("round trip taken out"))
    }

    /// An upload's confidence is its leading share less the next one.
    func testAnUploadsConfidenceIsTheLeadingShareAgainstTheNext() throws {
        let tcp = TCPFacts(span: 8_000_000, bytesSent: 10_000_000, bytesAcked: 10_000_000, bytesReceived: 100,
                           bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: 0, minRTT: 40_000,
                           smoothedRTT: 48_000, maxRTT: 60_000, receiveRTT: 0, congestionWindowMin: 10,
                           congestionWindowMax: 80, sendMSS: 1448, pathMTU: 1500, peerWindowMin: 65536,
                           deliveryRateMax: nil, deliveryRateMedian: nil, busy: 8_000_000,
                           receiveWindowLimited: 6_000_000, sendBufferLimited: 0, samples: [])
        let d = Diagnosis.of(.init(phases: Phases(connect: 48_000, send: 8_000_000, wait: 1000, total: 8_050_000),
                                   requestBodyBytes: 10_000_000, responseBodyBytes: 100, tcp: tcp))
        XCTAssertEqual(d.verdict, .serverWindow)
        // rwnd-limited 75% of the send time, the rest of the busy time (network) 25%.
        XCTAssertEqual(d.evidence.confidence ?? 0, 0.5, accuracy: 1e-9)
        XCTAssertEqual(d.basis, "server-window 75% of the send time against network 25%; confidence 0.50")
    }

    /// The kernel's bytes of one `struct tcp_info` snapshot, `length` of them as the kernel returned, with the receive
    /// side's fields as given (offsets of `<linux/tcp.h>`).
    static func snapshot(length: Int = 236, receiveRTT: UInt32, receiveWindow: UInt32, received: UInt64,
                          outOfOrder: UInt32 = 0) throws -> TCPInfo {
        var bytes = [UInt8](repeating: 0, count: 236)
        func put32(_ value: UInt32, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        bytes[0] = 1
        put32(1448, at: 20)  // tcpi_rcv_mss
        put32(64_000, at: 64)  // tcpi_rcv_ssthresh
        put32(40_000, at: 68)  // tcpi_rtt
        put32(receiveRTT, at: 92)  // tcpi_rcv_rtt
        put32(131_072, at: 96)  // tcpi_rcv_space
        withUnsafeBytes(of: received.littleEndian) { bytes.replaceSubrange(128..<136, with: $0) }
        put32(40_000, at: 148)  // tcpi_min_rtt
        put32(outOfOrder, at: 224)  // tcpi_rcv_ooopack
        put32(receiveWindow, at: 232)  // tcpi_rcv_wnd
        return try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: length) })
    }

    /// The builder's receive side: the window's median and largest, the receive RTT's minimum and median without the
    /// unmeasured 0, the share of the queue readings holding at least a segment, the kernel's ceiling and space.
    func testTheBuilderGathersTheReceiveSide() throws {
        var builder = TCPFacts.Builder()
        let readings: [(rtt: UInt32, window: UInt32, queue: Int)] = [(0, 60_000, 0), (42_000, 65_000, 3_000),
                                                                      (40_500, 64_000, 100), (41_000, 62_000, 0)]
        for (i, r) in readings.enumerated() {
            builder.add(try Self.snapshot(receiveRTT: r.rtt, receiveWindow: r.window, received: UInt64(i) * 100_000),
                        at: Int64(i) * 100_000, receiveQueue: r.queue)
        }
        builder.noteReceiveBuffer(131_072)
        builder.noteReceiveBuffer(262_144)
        let facts = try XCTUnwrap(builder.finish())
        XCTAssertEqual(facts.receiveWindowMedian, 64_000)
        XCTAssertEqual(facts.receiveWindowMax, 65_000)
        XCTAssertEqual(facts.receiveRTTMin, 40_500)
        XCTAssertEqual(facts.receiveRTTMedian, 41_000)
        XCTAssertEqual(facts.receiveQueueShare, 0.25, "one reading of four held a segment (1448 bytes) or more")
        XCTAssertEqual(facts.receiveBuffer, 262_144)
        XCTAssertEqual(facts.receiveSSThresholdMax, 64_000)
        XCTAssertEqual(facts.receiveSpace, 131_072)
        XCTAssertEqual(facts.samples.map(\.receiveQueue), [0, 3_000, 100, 0])
        XCTAssertEqual(facts.samples.map(\.receiveWindow), [60_000, 65_000, 64_000, 62_000])
    }

    /// A kernel that returns 232 bytes (5.4 to 6.2) has no tcpi_rcv_wnd: null, never 0; a transfer shorter than one
    /// sample (two snapshots) gets the same figures without an array.
    func testAShortStructHasNoReceiveWindowAndTwoSnapshotsSuffice() throws {
        var builder = TCPFacts.Builder()
        builder.add(try Self.snapshot(length: 232, receiveRTT: 0, receiveWindow: 65_000, received: 0), at: 0)
        builder.add(try Self.snapshot(length: 232, receiveRTT: 40_200, receiveWindow: 65_000, received: 9_000), at: 50_000,
                    receiveQueue: 2_000)
        let facts = try XCTUnwrap(builder.finish(keepingSamples: false))
        XCTAssertNil(facts.receiveWindowMedian)
        XCTAssertNil(facts.receiveWindowMax)
        XCTAssertEqual(facts.receiveRTTMedian, 40_200)
        XCTAssertEqual(facts.receiveRTTMin, 40_200)
        XCTAssertEqual(facts.receiveQueueShare, 1, "the one queue reading held a segment")
        XCTAssertTrue(facts.samples.isEmpty)
    }
}
