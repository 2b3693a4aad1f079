import XCTest
import WirelensCore
import WirelensTestSupport

/// The verdict rules of `Diagnosis.of(_:)` on crafted facts, one condition per verdict.
final class DiagnosisTests: XCTestCase {
    /// Kernel facts of a transfer: RTT 48 ms, the stopwatches as given (µs), a 64 KiB peer window.
    private func facts(busy: UInt64? = 0, rwnd: UInt64? = 0, sndbuf: UInt64? = 0, outOfOrder: UInt32? = 0,
                       received: UInt64 = 0, shared: Bool = false) -> TCPFacts {
        var f = TCPFacts(span: 10_000_000, bytesSent: 10_000_000, bytesAcked: 10_000_000, bytesReceived: received,
                         bytesRetransmitted: 20_000, segmentsRetransmitted: 14, outOfOrderPacketsIn: outOfOrder,
                         minRTT: 40_000, smoothedRTT: 48_000, maxRTT: 60_000, receiveRTT: 50_000,
                         congestionWindowMin: 10, congestionWindowMax: 80, sendMSS: 1448, pathMTU: 1500,
                         peerWindowMin: 65536, deliveryRateMax: 2_000_000, deliveryRateMedian: 1_300_000,
                         busy: busy, receiveWindowLimited: rwnd, sendBufferLimited: sndbuf, samples: [])
        f.shared = shared
        return f
    }

    /// An upload of 10 MB whose send phase lasted 8 s, with 1 s of wait.
    private func upload(_ tcp: TCPFacts?, wait: Int64 = 1_000_000, missing: String? = nil) -> Diagnosis {
        Diagnosis.of(.init(phases: Phases(connect: 48_000, send: 8_000_000, wait: wait, receive: 1000, total: 9_100_000),
                           requestBodyBytes: 10_000_000, responseBodyBytes: 100, tcp: tcp, missingReason: missing))
    }

    func testAFullPeerWindowIsTheServersWindow() {
        let d = upload(facts(busy: 7_900_000, rwnd: 7_400_000))
        XCTAssertEqual(d.verdict, .serverWindow)
        XCTAssertEqual(d.evidence.receiveWindowLimitedShare ?? 0, 0.925, accuracy: 1e-9)
        // 64 KiB over 48 ms: 1.37 MB/s.
        XCTAssertEqual(d.evidence.windowCap ?? 0, 65536 / 0.048, accuracy: 1)
        XCTAssertTrue(d.explanation.contains("1.37 MB/s"), d.explanation)
        XCTAssertTrue(d.explanation.contains("92%") || d.explanation.contains("93%"), d.explanation)
    }

    /// Issue 27 item 2: a 32 KiB window over a 40 ms path, the kernel's rwnd stopwatch at 41% (an ack-clocked sender
    /// held by the window counts as busy): the body at window / RTT on an unqueued path is the server's window. The
    /// same stopwatches with a queue on the path, or a body well below the cap, stay `network`.
    func testABodyAtTheWindowOverTheRTTOnAnUnqueuedPathIsTheServersWindow() {
        func diagnosis(smoothedRTT: UInt32, bodyBytes: Int64) -> Diagnosis {
            let tcp = TCPFacts(span: 8_000_000, bytesSent: UInt64(bodyBytes), bytesAcked: UInt64(bodyBytes),
                               bytesReceived: 200, bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: 0,
                               minRTT: 40_000, smoothedRTT: smoothedRTT, maxRTT: smoothedRTT + 2_000, receiveRTT: 0,
                               congestionWindowMin: 10, congestionWindowMax: 40, sendMSS: 1448, pathMTU: 1500,
                               peerWindowMin: 32768, deliveryRateMax: 900_000, deliveryRateMedian: 800_000,
                               busy: 7_990_000, receiveWindowLimited: 3_280_000, sendBufferLimited: 0, samples: [])
            return Diagnosis.of(.init(phases: Phases(connect: 40_000, send: 8_000_000, wait: 1000, receive: 100,
                                                     total: 8_041_100),
                                      requestBodyBytes: bodyBytes, responseBodyBytes: 10, tcp: tcp))
        }
        // 32768 B / 40.8 ms = 803 KB/s; the body moved 6.2 MB in 8 s, 775 KB/s.
        let bound = diagnosis(smoothedRTT: 40_800, bodyBytes: 6_200_000)
        XCTAssertEqual(bound.verdict, .serverWindow, bound.explanation)
        XCTAssertEqual(bound.evidence.receiveWindowLimitedShare ?? 0, 0.41, accuracy: 1e-9)
        XCTAssertEqual(bound.evidence.windowCap ?? 0, 32768 / 0.0408, accuracy: 1)
        XCTAssertNotNil(bound.explanation.range(of: "the body moved at 775 KB/s"), bound.explanation)
        // 20% either way is the window's; 25% below is not.
        XCTAssertEqual(diagnosis(smoothedRTT: 40_800, bodyBytes: 7_700_000).verdict, .serverWindow)
        XCTAssertEqual(diagnosis(smoothedRTT: 40_800, bodyBytes: 4_800_000).verdict, .network)
        // A queue of 20 ms on a 40 ms path: a full link, the network's. The cap then is 32768 B / 60 ms = 546 KB/s,
        // and the body moved at it, two thirds of the window over the minimum round trip.
        XCTAssertEqual(diagnosis(smoothedRTT: 60_000, bodyBytes: 4_370_000).verdict, .network)
        // A round trip of 50 ms at the end while the body moved at 85% of the window over the minimum (695 KB/s of
        // 819 KB/s): the window's bytes crossed near the minimum, so the window's.
        XCTAssertEqual(diagnosis(smoothedRTT: 50_000, bodyBytes: 5_560_000).verdict, .serverWindow)
    }

    func testAFullSendBufferIsTheClientsBuffer() {
        XCTAssertEqual(upload(facts(busy: 7_900_000, rwnd: 100_000, sndbuf: 6_000_000)).verdict, .sendBuffer)
    }

    /// Facts whose samples each hold `unacked` segments of 64 KiB in flight with `notSent` bytes waiting, a
    /// congestion window of 18 and a peer window of 447 KiB, all of the send time busy and no stopwatch but busy
    /// running: what loopback showed with `--sndbuf 4KiB` (the kernel reports 8 KiB).
    private func bufferFacts(sendBuffer: Int?, unacked: UInt32 = 1, notSent: UInt32 = 0,
                             window: UInt32 = 457_728) -> TCPFacts {
        var builder = TCPFacts.Builder()
        if let sendBuffer { builder.noteSendBuffer(sendBuffer) }
        builder.add(Fixture.tcpInfo(cwnd: 10, window: 65483, mss: 65483), at: 0)
        for step in 1...20 {
            builder.add(Fixture.tcpInfo(acked: UInt64(step) * 400_000, rtt: 33_000, cwnd: 18, window: window,
                                        busy: UInt64(step) * 400_000, mss: 65483, unacked: unacked, notSent: notSent),
                        at: Int64(step) * 400_000)
        }
        return builder.finish()!
    }

    func testASendBufferHoldingTheSegmentsInFlightIsTheSendBufferThoughTheKernelCountedBusy() throws {
        let d = upload(bufferFacts(sendBuffer: 8192))
        XCTAssertEqual(d.verdict, .sendBuffer, d.explanation)
        XCTAssertEqual(d.evidence.bufferBoundShare ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.sendBuffer, 8192)
        XCTAssertEqual(d.evidence.sendBufferLimitedShare ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.networkShare ?? 1, 0, accuracy: 1e-9)
        XCTAssertNotNil(d.explanation.range(of: "8.00 KiB"), d.explanation)
        XCTAssertNotNil(d.explanation.range(of: "1 segment of 63.9 KiB"), d.explanation)
        XCTAssertNotNil(d.explanation.range(of: "congestion window allowed 18"), d.explanation)
    }

    func testTheSameSegmentsInFlightUnderALargeBufferAreNotTheBuffer() {
        // An auto-tuned buffer of 4 MiB holding one segment: the buffer was not full, so not its limit.
        XCTAssertEqual(upload(bufferFacts(sendBuffer: 4 << 20)).verdict, .network)
        // Bytes waiting unsent: the congestion window, not the buffer, held them back.
        XCTAssertEqual(upload(bufferFacts(sendBuffer: 8192, unacked: 9, notSent: 200_000)).verdict, .network)
        // The peer's window had no room for another segment: not the buffer.
        XCTAssertEqual(upload(bufferFacts(sendBuffer: 8192, window: 100_000)).verdict, .network)
        // In flight at least half the congestion window: not the buffer.
        XCTAssertEqual(upload(bufferFacts(sendBuffer: 8192, unacked: 10)).verdict, .network)
        // Without the buffer's size the samples say nothing about it.
        let unknownSize = upload(bufferFacts(sendBuffer: nil))
        XCTAssertEqual(unknownSize.verdict, .network)
        XCTAssertNil(unknownSize.evidence.bufferBoundShare)
    }

    /// Six 1448-byte segments filling an 8 KiB buffer, the windows with room: over a path whose minimum round trip
    /// is 0.9 ms, round trips of 1.2 ms are the buffer's limit; 14 ms means those bytes queued at a full link (what
    /// an 8 Mbit/s tbf with `--sndbuf 4KiB` showed), where a larger buffer would only lengthen the queue.
    func testASmallBufferWhoseBytesQueueOnThePathIsTheNetwork() {
        func facts(rtt: UInt32) -> TCPFacts {
            var builder = TCPFacts.Builder()
            builder.noteSendBuffer(8192)
            builder.add(Fixture.tcpInfo(cwnd: 10, window: 187_392), at: 0)
            for step in 1...20 {
                builder.add(Fixture.tcpInfo(acked: UInt64(step) * 400_000, rtt: rtt, cwnd: 18, window: 187_392,
                                            busy: UInt64(step) * 400_000, unacked: 6, notSent: 0),
                            at: Int64(step) * 400_000)
            }
            return builder.finish()!
        }
        let near = upload(facts(rtt: 1_200))
        XCTAssertEqual(near.verdict, .sendBuffer, near.explanation)
        XCTAssertEqual(near.evidence.bufferBoundShare ?? 0, 1, accuracy: 1e-9)
        let queued = upload(facts(rtt: 14_000))
        XCTAssertEqual(queued.verdict, .network, queued.explanation)
        XCTAssertEqual(queued.evidence.bufferBoundShare ?? 1, 0, accuracy: 1e-9)
    }

    func testBusyWithinTheCongestionWindowIsTheNetwork() {
        let d = upload(facts(busy: 7_950_000, rwnd: 50_000, sndbuf: 0))
        XCTAssertEqual(d.verdict, .network)
        XCTAssertEqual(d.evidence.retransmittedShare ?? 0, 0.002, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.networkShare ?? 0, 0.9875, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.deliveryRate, 1_300_000)
    }

    /// The kernel's stopwatches count whole clock ticks: a 1.5 ms send phase with busy 0 is too short to tell, not
    /// an idle client (a 256 KiB upload on loopback from an always-ready source read so).
    func testASendPhaseShorterThanTheStopwatchesCanSplitIsUnknown() {
        let d = Diagnosis.of(.init(phases: Phases(connect: 300, send: 1_500, wait: 30, receive: 200, total: 2_100),
                                   requestBodyBytes: 262_144, responseBodyBytes: 100,
                                   tcp: TCPFacts(span: 2_000, bytesSent: 262_400, bytesAcked: 262_400, bytesReceived: 300,
                                                 bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: 0,
                                                 minRTT: 10, smoothedRTT: 40, maxRTT: 60, receiveRTT: 0,
                                                 congestionWindowMin: 10, congestionWindowMax: 10, sendMSS: 65483,
                                                 pathMTU: 65535, peerWindowMin: 65536, deliveryRateMax: nil,
                                                 deliveryRateMedian: nil, busy: 0, receiveWindowLimited: 0,
                                                 sendBufferLimited: 0, samples: [])))
        XCTAssertEqual(d.verdict, .unknown)
        XCTAssertEqual(d.evidence.reason, .belowStopwatchFloor)
        XCTAssertEqual(d.evidence.idleShare, 1, "the kernel's numbers stay in the evidence")
    }

    func testNothingQueuedIsTheClient() {
        let d = upload(facts(busy: 2_000_000, rwnd: 0, sndbuf: 0))
        XCTAssertEqual(d.verdict, .client)
        XCTAssertEqual(d.evidence.idleShare ?? 0, 0.75, accuracy: 1e-9)
    }

    func testAWaitOfHalfTheTotalIsTheServersThinking() {
        let d = Diagnosis.of(.init(phases: Phases(connect: 100, send: 200, wait: 600_000, receive: 300, total: 601_000),
                                   requestBodyBytes: 0, responseBodyBytes: 1000, tcp: facts()))
        XCTAssertEqual(d.verdict, .serverThink)
        XCTAssertEqual(d.evidence.waitShare ?? 0, 600_000.0 / 601_000, accuracy: 1e-9)
    }

    func testHandshakesAndAFewRoundTripsAreRoundTrips() {
        // Connect and TLS of 2 RTT, the body in 2 RTT of 48 ms, a short wait.
        let d = Diagnosis.of(.init(phases: Phases(dns: 1000, connect: 48_000, tls: 96_000, send: 96_000, wait: 10_000,
                                                  receive: 1000, total: 252_000),
                                   requestBodyBytes: 20_000, responseBodyBytes: 10, tcp: facts()))
        XCTAssertEqual(d.verdict, .roundTrips)
        XCTAssertEqual(d.evidence.roundTrips ?? 0, 252_000.0 / 48_000, accuracy: 1e-9)
    }

    func testAShortTransferWhoseTimeWentElsewhereIsUnknown() throws {
        let d = Diagnosis.of(.init(phases: Phases(queue: 900_000, send: 10_000, wait: 1000, receive: 1000, total: 912_000),
                                   requestBodyBytes: 100, responseBodyBytes: 10, tcp: facts()))
        XCTAssertEqual(d.verdict, .unknown)
        XCTAssertNotNil(d.evidence.reason?.text.range(of: "too short to tell"))
        // A report read back (`wirelens render`) has the rule's reason again, and so the sentence's figures.
        let read = try JSONDecoder().decode(Diagnosis.self, from: JSONEncoder().encode(d))
        XCTAssertEqual(read.evidence.reason, .tooShort)
        XCTAssertEqual(read.explanation, d.explanation)
        XCTAssertTrue(d.explanation.contains("RTT"), d.explanation)
    }

    func testNoKernelFactsIsUnknownWithItsReason() {
        let d = upload(nil, missing: "not Linux")
        XCTAssertEqual(d.verdict, .unknown)
        XCTAssertEqual(d.evidence.reason, "not Linux")
    }

    func testAKernelWithoutTheStopwatchesIsUnknownNeverAGuess() {
        let d = upload(facts(busy: nil, rwnd: nil, sndbuf: nil))
        XCTAssertEqual(d.verdict, .unknown)
        XCTAssertNotNil(d.evidence.reason?.text.range(of: "4.10"))
    }

    /// Without a receive window (no tcpi_rcv_wnd, no tcpi_rcv_ssthresh) a download is `unknown` naming it, unless a
    /// loss sign names the path (`DownloadDiagnosisTests` has the receive side's verdicts).
    func testADownloadWithoutAReceiveWindowIsUnknownUnlessALossSignCame() {
        let phases = Phases(connect: 48_000, send: 100, wait: 50_000, receive: 5_000_000, total: 5_100_000)
        let plain = Diagnosis.of(.init(phases: phases, requestBodyBytes: 0, responseBodyBytes: 8_000_000,
                                       tcp: facts(received: 8_000_000)))
        XCTAssertEqual(plain.verdict, .unknown)
        XCTAssertEqual(plain.evidence.reason, .noReceiveWindow)
        XCTAssertEqual(plain.evidence.direction, "download")
        let lossy = Diagnosis.of(.init(phases: phases, requestBodyBytes: 0, responseBodyBytes: 8_000_000,
                                       tcp: facts(outOfOrder: 31, received: 8_000_000)))
        XCTAssertEqual(lossy.verdict, .network)
        XCTAssertEqual(lossy.evidence.outOfOrderPacketsIn, 31)
    }

    func testSharedAndProxiedFactsSaySo() {
        let shared = upload(facts(busy: 7_900_000, rwnd: 7_400_000, shared: true))
        XCTAssertTrue(shared.evidence.sharedConnection)
        XCTAssertNotNil(shared.explanation.range(of: "shared with other transfers"))
        let proxied = Diagnosis.of(.init(phases: Phases(send: 8_000_000, wait: 1000, total: 8_100_000),
                                         requestBodyBytes: 10_000_000, responseBodyBytes: 0,
                                         tcp: facts(busy: 7_900_000, rwnd: 7_400_000), throughProxy: true))
        XCTAssertTrue(proxied.evidence.proxyHop)
        XCTAssertNotNil(proxied.explanation.range(of: "hop to the proxy"))
    }
}
