import XCTest
import WirelensCore
import WirelensTestSupport

final class PhaseMathTests: XCTestCase {
    /// Monotonic nanoseconds of the anchor reading, and the wall-clock µs it corresponds to.
    private let mono0: Int64 = 7_000_000_000_000
    private let wall0: Int64 = Fixture.epoch
    private var anchor: ClockAnchor { ClockAnchor(wallMicros: wall0, monotonicNanos: mono0) }

    /// Wall-clock µs of the monotonic instant `mono0 + nanos`.
    private func wall(_ nanos: Int64) -> Int64 { wall0 + nanos / 1000 }

    private func assertOrdered(_ timeline: Timeline, file: StaticString = #filePath, line: UInt = #line) {
        var last: (String, Int64)?
        for field in timeline.fields {
            guard let value = field.value else { continue }
            if let last {
                XCTAssertGreaterThanOrEqual(value, last.1, "\(field.name) is before \(last.0)", file: file, line: line)
            }
            last = (field.name, value)
        }
    }

    private func assertNoNegativePhase(_ phases: Phases, file: StaticString = #filePath, line: UInt = #line) {
        for name in Phases.names {
            if let value = phases.value(named: name) {
                XCTAssertGreaterThanOrEqual(value, 0, "phase \(name) is negative", file: file, line: line)
            }
        }
    }

    // MARK: - Anchored to what was observed

    /// A transfer seen on loopback (HTTP/2 over TLS, 4 at once; µs from the handle being added): its SYN left at
    /// 931 and the SYN/ACK came at 938, libcurl made the socket at 925 and said "Connected" at 990, PREREQFUNCTION
    /// ran at 7121, and libcurl's own timers (counted from a start it stamped late in its request set-up) put
    /// NAMELOOKUP at 12, CONNECT at 77, APPCONNECT at 5938 and PRETRANSFER at 6403. Counted back from PREREQ, the
    /// connect phase ended at 795, before the SYN.
    func testConnectPhaseKeepsTheWireOrderWhenLibcurlsStartIsLate() {
        let fetch = mono0
        let us: (Int64) -> Int64 = { fetch + $0 * 1000 }
        let timers = CurlTimers(nameLookup: 12, connect: 77, appConnect: 5938, preTransfer: 6403, startTransfer: 6526,
                                total: 6566)
        let raw = RawTimings(fetchStart: fetch, connectionReady: us(7121), requestEnd: us(7294),
                             responseStart: us(7433), end: us(9360), curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: true, socketOpened: us(925), connected: us(990))
        let t = PhaseMath.compute(raw, anchor: anchor).timeline
        let (syn, synAck) = (wall(931_000), wall(938_000))
        XCTAssertLessThanOrEqual(try XCTUnwrap(t.connectStart), syn)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(t.connectEnd), synAck)
        XCTAssertEqual(t.domainLookupEnd, wall(925_000), "the socket is made as the name is resolved")
        XCTAssertEqual(t.connectStart, wall(925_000))
        XCTAssertLessThanOrEqual(try XCTUnwrap(t.secureConnectionEnd), try XCTUnwrap(t.requestStart))
        XCTAssertEqual(t.requestStart, wall(7_121_000), "PREREQFUNCTION: before the first request byte")
        assertOrdered(t)
    }

    /// libcurl's CONNECT stamp lands before its "Connected" text: the connect phase ends at the text.
    func testConnectEndIsNotBeforeLibcurlSaidConnected() {
        let fetch = mono0
        let us: (Int64) -> Int64 = { fetch + $0 * 1000 }
        let timers = CurlTimers(nameLookup: 10, connect: 20, preTransfer: 400, startTransfer: 600, total: 700)
        let raw = RawTimings(fetchStart: fetch, connectionReady: us(500), requestEnd: us(520), responseStart: us(650),
                             end: us(700), curl: timers, reusedConnection: false, hostIsIPLiteral: true,
                             usesTLS: false, socketOpened: us(100), connected: us(300))
        let result = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(result.timeline.connectStart, wall(90_000), "libcurl's start: the socket less NAMELOOKUP")
        XCTAssertEqual(result.timeline.connectEnd, wall(300_000))
        XCTAssertEqual(result.phases.queue, 90)
        assertOrdered(result.timeline)
        assertNoNegativePhase(result.phases)
    }

    // MARK: - New connection

    /// A new HTTPS connection: libcurl starts its timers 40 µs after the handle is added; DNS 20 ms,
    /// TCP 30 ms, TLS 70 ms, 3 µs of set-up, 250 µs to send, 80 ms of server time, 10 ms to receive.
    private func newHTTPSConnection() -> (RawTimings, curlStart: Int64) {
        let fetch = mono0
        let curlStart = fetch + 40_000
        let timers = CurlTimers(nameLookup: 20_000, connect: 50_000, appConnect: 120_000, preTransfer: 120_003,
                                startTransfer: 200_293, total: 210_293)
        let ready = curlStart + 120_003_000
        let requestEnd = ready + 250_000
        let responseStart = requestEnd + 80_000_000
        let end = responseStart + 10_000_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: requestEnd,
                             responseStart: responseStart, end: end, curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: true)
        return (raw, curlStart)
    }

    func testNewHTTPSConnectionPhases() {
        let (raw, _) = newHTTPSConnection()
        let p = PhaseMath.compute(raw, anchor: anchor).phases
        XCTAssertEqual(p.queue, 40)
        XCTAssertEqual(p.dns, 20_000)
        XCTAssertEqual(p.connect, 30_000)
        XCTAssertEqual(p.tls, 70_000)
        XCTAssertEqual(p.send, 250)
        XCTAssertEqual(p.wait, 80_000)
        XCTAssertEqual(p.receive, 10_000)
        XCTAssertEqual(p.total, 210_293)
    }

    func testNewHTTPSConnectionPhasesAddUpToTotal() {
        let (raw, _) = newHTTPSConnection()
        let p = PhaseMath.compute(raw, anchor: anchor).phases
        XCTAssertLessThanOrEqual(p.sumOfParts, p.total)
        XCTAssertLessThanOrEqual(p.total - p.sumOfParts, 5, "only libcurl's few µs between TLS and request are outside the phases")
    }

    func testNewHTTPSConnectionTimelineIsContiguousAndOrdered() {
        let (raw, curlStart) = newHTTPSConnection()
        let t = PhaseMath.compute(raw, anchor: anchor).timeline
        assertOrdered(t)
        let s = curlStart - mono0
        XCTAssertEqual(t.fetchStart, wall0)
        XCTAssertEqual(t.domainLookupStart, wall(s))
        XCTAssertEqual(t.domainLookupEnd, wall(s + 20_000_000))
        XCTAssertEqual(t.connectStart, t.domainLookupEnd, "TCP starts where DNS ends")
        XCTAssertEqual(t.connectEnd, wall(s + 50_000_000))
        XCTAssertEqual(t.secureConnectionStart, t.connectEnd, "TLS starts where TCP ends")
        XCTAssertEqual(t.secureConnectionEnd, wall(s + 120_000_000))
        XCTAssertEqual(t.requestStart, wall(raw.connectionReady! - mono0))
        XCTAssertEqual(t.requestEnd, wall(raw.requestEnd! - mono0))
        XCTAssertEqual(t.responseStart, wall(raw.responseStart! - mono0))
        XCTAssertEqual(t.responseEnd, wall(raw.end - mono0))
    }

    func testPlainHTTPNewConnectionHasNoTLS() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 1_500, connect: 2_500, appConnect: 0, preTransfer: 2_510,
                                startTransfer: 9_000, total: 10_000)
        let ready = fetch + 2_510_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: ready + 100_000,
                             responseStart: fetch + 9_000_000, end: fetch + 10_000_000, curl: timers,
                             reusedConnection: false, hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.dns, 1_500)
        XCTAssertEqual(r.phases.connect, 1_000)
        XCTAssertNil(r.phases.tls)
        XCTAssertNil(r.timeline.secureConnectionStart)
        XCTAssertNil(r.timeline.secureConnectionEnd)
        XCTAssertEqual(r.phases.send, 100)
        XCTAssertEqual(r.phases.wait, 6_390)
        XCTAssertEqual(r.phases.receive, 1_000)
    }

    // MARK: - Reused connection

    /// libcurl 7.88 leaves the set-up timers of a reused connection at 0 or at a copy of an earlier value:
    /// neither may show up as a real zero-length (or any-length) phase.
    func testReusedConnectionHasNoSetupPhases() {
        for timers in [
            CurlTimers(nameLookup: 0, connect: 0, appConnect: 0, preTransfer: 4, startTransfer: 30_000, total: 31_000),
            CurlTimers(nameLookup: 3, connect: 3, appConnect: 3, preTransfer: 4, startTransfer: 30_000, total: 31_000),
        ] {
            let fetch = mono0
            let ready = fetch + 50_000 + 4_000
            let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: ready + 200_000,
                                 responseStart: ready + 30_000_000, end: ready + 31_000_000, curl: timers,
                                 reusedConnection: true, hostIsIPLiteral: false, usesTLS: true)
            let r = PhaseMath.compute(raw, anchor: anchor)
            XCTAssertNil(r.phases.dns, "\(timers)")
            XCTAssertNil(r.phases.connect, "\(timers)")
            XCTAssertNil(r.phases.tls, "\(timers)")
            XCTAssertNil(r.timeline.domainLookupStart)
            XCTAssertNil(r.timeline.domainLookupEnd)
            XCTAssertNil(r.timeline.connectStart)
            XCTAssertNil(r.timeline.connectEnd)
            XCTAssertNil(r.timeline.secureConnectionStart)
            XCTAssertNil(r.timeline.secureConnectionEnd)
            XCTAssertEqual(r.phases.queue, 50)
            XCTAssertEqual(r.phases.send, 200)
            XCTAssertEqual(r.phases.wait, 29_800)
            XCTAssertEqual(r.phases.receive, 1_000)
            XCTAssertEqual(r.phases.total, 31_054)
            XCTAssertLessThanOrEqual(r.phases.total - r.phases.sumOfParts, 5)
            assertOrdered(r.timeline)
        }
    }

    // MARK: - IP literal

    func testIPLiteralHostHasNoDNSButHasConnect() {
        let fetch = mono0
        // libcurl stamps a tiny NAMELOOKUP even for an IP literal.
        let timers = CurlTimers(nameLookup: 6, connect: 900, appConnect: 5_000, preTransfer: 5_004,
                                startTransfer: 7_000, total: 8_000)
        let ready = fetch + 5_004_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: ready + 50_000,
                             responseStart: fetch + 7_000_000, end: fetch + 8_000_000, curl: timers,
                             reusedConnection: false, hostIsIPLiteral: true, usesTLS: true)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertNil(r.phases.dns)
        XCTAssertNil(r.timeline.domainLookupStart)
        XCTAssertNil(r.timeline.domainLookupEnd)
        XCTAssertEqual(r.timeline.connectStart, wall0)
        XCTAssertEqual(r.phases.connect, 900)
        XCTAssertEqual(r.phases.tls, 4_100)
        XCTAssertEqual(r.timeline.secureConnectionStart, r.timeline.connectEnd)
        assertOrdered(r.timeline)
    }

    // MARK: - Queue

    /// Behind CURLMOPT_MAX_HOST_CONNECTIONS libcurl's timers restart when the transfer leaves the queue:
    /// the engine added it at 0, the connection was ready at 1.0 s and PRETRANSFER says 500 µs.
    func testQueuedTransferQueueTimeComesFromConnectionReady() {
        let zeroAnchor = ClockAnchor(wallMicros: wall0, monotonicNanos: 0)
        let timers = CurlTimers(nameLookup: 0, connect: 0, appConnect: 0, preTransfer: 500,
                                startTransfer: 500_000, total: 1_500_000)
        let raw = RawTimings(fetchStart: 0, connectionReady: 1_000_000_000, requestEnd: 1_000_100_000,
                             responseStart: 1_499_500_000, end: 1_500_000_000, curl: timers,
                             reusedConnection: true, hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: zeroAnchor)
        XCTAssertEqual(r.phases.queue, 999_500)
        XCTAssertEqual(r.phases.total, 1_500_000)
        XCTAssertEqual(r.phases.send, 100)
        XCTAssertEqual(r.phases.wait, 499_400)
        XCTAssertEqual(r.phases.receive, 500)
        // total - starttransfer would claim a 1 s "receive"; ours is the 0.5 ms it really was.
        XCTAssertLessThan(r.phases.receive!, timers.total - timers.startTransfer)
        // Only libcurl's own PRETRANSFER interval (set-up before the request) is outside the phases.
        XCTAssertEqual(r.phases.total - r.phases.sumOfParts, timers.preTransfer)
    }

    func testQueuedNewConnectionStartsDNSWhenItLeavesTheQueue() {
        let fetch = mono0
        let queueNs: Int64 = 250_000_000
        let timers = CurlTimers(nameLookup: 2_000, connect: 5_000, appConnect: 0, preTransfer: 5_002,
                                startTransfer: 20_000, total: 270_000)
        let ready = fetch + queueNs + 5_002_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: ready,
                             responseStart: fetch + queueNs + 19_000_000, end: fetch + queueNs + 20_000_000,
                             curl: timers, reusedConnection: false, hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.queue, 250_000)
        XCTAssertEqual(r.timeline.domainLookupStart, wall(queueNs))
        XCTAssertEqual(r.timeline.domainLookupEnd, wall(queueNs + 2_000_000))
        XCTAssertEqual(r.timeline.connectEnd, wall(queueNs + 5_000_000))
        XCTAssertEqual(r.phases.dns, 2_000)
        XCTAssertEqual(r.phases.connect, 3_000)
    }

    // MARK: - libcurl 7.88 upload bug

    /// For uploads libcurl 7.88 stamps STARTTRANSFER at the first upload byte. A 2 s upload answered
    /// 120 ms after its last byte must show 2 s of send and 120 ms of wait, not 2.1 s of "server time".
    func testUploadTimeIsSendNotWaitDespiteEarlyStartTransfer() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 1_000, connect: 3_000, appConnect: 0, preTransfer: 3_010,
                                startTransfer: 3_500, total: 2_125_010)
        let ready = fetch + 3_010_000
        let requestEnd = ready + 2_000_000_000
        let responseStart = requestEnd + 120_000_000
        let end = responseStart + 2_000_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: requestEnd,
                             responseStart: responseStart, end: end, curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.send, 2_000_000)
        XCTAssertEqual(r.phases.wait, 120_000)
        XCTAssertEqual(r.phases.receive, 2_000)
        XCTAssertEqual(r.timeline.responseStart, wall(responseStart - mono0))
        XCTAssertEqual(r.timeline.requestEnd, wall(requestEnd - mono0))
        XCTAssertNotEqual(r.timeline.responseStart, wall(timers.startTransfer * 1000),
                          "responseStart must not come from STARTTRANSFER")
        XCTAssertLessThanOrEqual(r.phases.total - r.phases.sumOfParts, 15)
    }

    // MARK: - Failures

    func testConnectRefusedHasConnectStartButNoConnectEnd() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 2_000, connect: 0, appConnect: 0, preTransfer: 0, startTransfer: 0,
                                total: 5_000)
        let end = fetch + 5_000_000
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil, end: end,
                             curl: timers, reusedConnection: false, hostIsIPLiteral: false, usesTLS: true)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.dns, 2_000)
        XCTAssertEqual(r.timeline.connectStart, wall(2_000_000))
        XCTAssertNil(r.timeline.connectEnd)
        XCTAssertNil(r.phases.connect)
        XCTAssertNil(r.timeline.secureConnectionStart, "TLS never started")
        XCTAssertNil(r.phases.tls)
        XCTAssertNil(r.timeline.requestStart)
        XCTAssertNil(r.timeline.requestEnd)
        XCTAssertNil(r.timeline.responseStart)
        XCTAssertNil(r.timeline.responseEnd)
        XCTAssertNil(r.phases.send)
        XCTAssertNil(r.phases.wait)
        XCTAssertNil(r.phases.receive)
        XCTAssertEqual(r.phases.queue, 0)
        XCTAssertEqual(r.phases.total, 5_000)
    }

    func testConnectRefusedToIPLiteralStartsConnectAtCurlStart() {
        let fetch = mono0
        let timers = CurlTimers(total: 1_200)
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil,
                             end: fetch + 1_300_000, curl: timers, reusedConnection: false, hostIsIPLiteral: true,
                             usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertNil(r.timeline.domainLookupStart)
        XCTAssertEqual(r.timeline.connectStart, wall(100_000))
        XCTAssertNil(r.timeline.connectEnd)
        XCTAssertEqual(r.phases.queue, 100)
        XCTAssertEqual(r.phases.total, 1_300)
    }

    func testDNSFailureHasLookupStartWithoutEnd() {
        let fetch = mono0
        let timers = CurlTimers(total: 3_000)
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil,
                             end: fetch + 3_000_000, curl: timers, reusedConnection: false, hostIsIPLiteral: false,
                             usesTLS: true)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.timeline.domainLookupStart, wall0)
        XCTAssertNil(r.timeline.domainLookupEnd)
        XCTAssertNil(r.phases.dns)
        XCTAssertNil(r.timeline.connectStart, "no TCP connect without an address")
        XCTAssertNil(r.timeline.secureConnectionStart)
        XCTAssertNil(r.timeline.requestStart)
        XCTAssertEqual(r.phases.total, 3_000)
    }

    func testTLSFailureHasSecureStartWithoutEnd() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 1_000, connect: 3_000, appConnect: 0, preTransfer: 0, startTransfer: 0,
                                total: 10_000)
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil,
                             end: fetch + 10_000_000, curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: true)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.dns, 1_000)
        XCTAssertEqual(r.phases.connect, 2_000)
        XCTAssertEqual(r.timeline.connectEnd, wall(3_000_000))
        XCTAssertEqual(r.timeline.secureConnectionStart, r.timeline.connectEnd)
        XCTAssertNil(r.timeline.secureConnectionEnd)
        XCTAssertNil(r.phases.tls)
        XCTAssertNil(r.timeline.requestStart)
        XCTAssertNil(r.phases.send)
        assertOrdered(r.timeline)
    }

    func testPlainHTTPFailureAfterConnectDoesNotInventTLS() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 1_000, connect: 3_000, total: 4_000)
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil,
                             end: fetch + 4_000_000, curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.connect, 2_000)
        XCTAssertNil(r.timeline.secureConnectionStart)
        XCTAssertNil(r.phases.tls)
    }

    // MARK: - Clamping

    /// The engine's clock and libcurl's disagree by a few µs: libcurl's start computed from PRETRANSFER
    /// falls before fetchStart, and its CONNECT lands after the moment the connection was reported ready.
    func testClampsWhenCurlStartFallsBeforeFetchStart() {
        let fetch = mono0
        let timers = CurlTimers(nameLookup: 20, connect: 120, appConnect: 0, preTransfer: 150, startTransfer: 400,
                                total: 500)
        let ready = fetch + 100_000 // 150 µs of PRETRANSFER would put libcurl's start 50 µs before fetchStart
        let raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: ready + 10_000,
                             responseStart: fetch + 400_000, end: fetch + 500_000, curl: timers,
                             reusedConnection: false, hostIsIPLiteral: false, usesTLS: false)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.queue, 0, "queue is never negative")
        XCTAssertEqual(r.timeline.domainLookupStart, r.timeline.fetchStart)
        assertOrdered(r.timeline)
        assertNoNegativePhase(r.phases)
        XCTAssertGreaterThanOrEqual(r.timeline.requestStart!, r.timeline.connectEnd!)
        XCTAssertEqual(r.timeline.responseEnd, wall(500_000))
        XCTAssertLessThanOrEqual(r.phases.sumOfParts, r.phases.total)
    }

    /// The first response byte is observed before the last request byte (an early 413, or callbacks
    /// seen out of order) and after the end: wait and receive are clamped at 0, never negative.
    func testClampsResponseStartBetweenRequestEndAndEnd() {
        let fetch = mono0
        let timers = CurlTimers(preTransfer: 10, startTransfer: 20, total: 1_000)
        let ready = fetch + 10_000
        var raw = RawTimings(fetchStart: fetch, connectionReady: ready, requestEnd: fetch + 600_000,
                             responseStart: fetch + 500_000, end: fetch + 1_000_000, curl: timers,
                             reusedConnection: true, hostIsIPLiteral: false, usesTLS: false)
        var r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.wait, 0)
        XCTAssertEqual(r.timeline.responseStart, r.timeline.requestEnd)
        XCTAssertEqual(r.phases.receive, 400)
        assertOrdered(r.timeline)

        raw.responseStart = fetch + 1_200_000
        raw.requestEnd = fetch + 1_100_000
        r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.timeline.requestEnd, wall(1_000_000), "requestEnd is clamped to the end")
        XCTAssertEqual(r.timeline.responseStart, wall(1_000_000))
        XCTAssertEqual(r.phases.receive, 0)
        XCTAssertEqual(r.phases.wait, 0)
        XCTAssertEqual(r.phases.send, 990)
        assertOrdered(r.timeline)
        assertNoNegativePhase(r.phases)
    }

    func testClampsCurlTimersBeyondTheEnd() {
        let fetch = mono0
        // A failed transfer whose libcurl total overshoots our own end by 2 ms.
        let timers = CurlTimers(nameLookup: 1_000, connect: 6_000, total: 6_000)
        let raw = RawTimings(fetchStart: fetch, connectionReady: nil, requestEnd: nil, responseStart: nil,
                             end: fetch + 4_000_000, curl: timers, reusedConnection: false,
                             hostIsIPLiteral: false, usesTLS: true)
        let r = PhaseMath.compute(raw, anchor: anchor)
        XCTAssertEqual(r.phases.queue, 0)
        XCTAssertEqual(r.timeline.connectEnd, wall(4_000_000), "connectEnd never lies after the end")
        XCTAssertEqual(r.phases.total, 4_000)
        assertOrdered(r.timeline)
        assertNoNegativePhase(r.phases)
    }

    // MARK: - Clock anchor

    func testTimelineUsesTheClockAnchor() {
        let (raw, _) = newHTTPSConnection()
        let a = PhaseMath.compute(raw, anchor: anchor)
        let shifted = ClockAnchor(wallMicros: wall0 + 3_600_000_000, monotonicNanos: mono0)
        let b = PhaseMath.compute(raw, anchor: shifted)
        XCTAssertEqual(a.phases, b.phases, "phases do not depend on the wall clock")
        for (x, y) in zip(a.timeline.fields, b.timeline.fields) {
            XCTAssertEqual(x.value.map { $0 + 3_600_000_000 }, y.value, x.name)
        }
        // An anchor read 2 s after fetchStart.
        let later = ClockAnchor(wallMicros: 1_000_000_000_000_000, monotonicNanos: mono0 + 2_000_000_000)
        let c = PhaseMath.compute(raw, anchor: later)
        XCTAssertEqual(c.timeline.fetchStart, 1_000_000_000_000_000 - 2_000_000)
        XCTAssertEqual(c.timeline.responseEnd, 1_000_000_000_000_000 - 2_000_000 + 210_293)
    }

    func testClockAnchorConversion() {
        let a = ClockAnchor(wallMicros: 1_000_000, monotonicNanos: 50_000_000_000)
        XCTAssertEqual(a.wallMicros(ofMonotonic: 50_000_000_000), 1_000_000)
        XCTAssertEqual(a.wallMicros(ofMonotonic: 50_001_500_000), 1_001_500)
        XCTAssertEqual(a.wallMicros(ofMonotonic: 49_999_000_000), 999_000)
        XCTAssertEqual(a.wallMicros(ofMonotonic: 50_000_000_999), 1_000_000, "sub-µs remainders are dropped")
    }
}
