import WirelensCore
import XCTest
@testable import WirelensProbe

/// How a transfer's observations become its transaction record. Oracles: the domain brief's rules (a reused
/// connection is CURLINFO_NUM_CONNECTS == 0 on a transfer that had a connection; a status exists only once a
/// response began; curl's 100-continue wait runs from the request head to the first body byte) and the README's
/// timeout messages.
final class TransferObservationTests: XCTestCase {
    private let anchor = LifecycleFixtures.anchor
    private let ms: Int64 = 1_000_000

    private func observation() -> TransferObservation {
        TransferObservation(
            kind: .initial, url: "http://a.example/", method: "PUT", hostIsIPLiteral: false, usesTLS: false,
            fetchStart: 0, connectionReady: 2 * ms, requestEnd: 5 * ms, responseStart: 9 * ms, headerOutAt: 2 * ms,
            firstBodyOutAt: nil, expectSent: false, end: 10 * ms, curlTimers: CurlTimers(), numConnects: 1,
            protocolName: "http/1.1", requestHeaderBytes: 100, responseHeaderBytes: 80, connectionId: 0,
            localAddress: "127.0.0.1", localPort: 40000, remoteAddress: "127.0.0.1", remotePort: 80, tlsVersion: nil,
            tlsCipher: nil, alpn: nil, status: 201, statusText: "Created", contentType: "text/plain",
            responseHeaders: nil, requestBodyBytes: 1000, responseBodyBytes: 7, retryWait: nil, error: nil, tcp: nil,
            readsTCP: false)
    }

    func testRecordedFacts() {
        let m = observation().metrics(anchor: anchor, throughProxy: false)
        XCTAssertEqual(m.statusCode, 201)
        XCTAssertEqual(m.statusText, "Created")
        XCTAssertEqual(m.contentType, "text/plain")
        XCTAssertFalse(m.reusedConnection)
        XCTAssertEqual(m.timeline.fetchStart, anchor.wallMicros)
        XCTAssertEqual(m.phases.total, 10_000)
        XCTAssertNil(m.expectContinueWait)
        XCTAssertNil(m.responseHeaders)
        XCTAssertEqual(m.diagnosis?.verdict, .unknown)
    }

    /// libcurl hands a finished transfer's connection to the next transfer inside `curl_multi_perform`, before the
    /// engine hears of the end: a completed response ends at its last byte's callback; a failed one when it failed.
    func testACompletedResponseEndsAtItsLastByte() {
        var seen = observation()
        seen.lastReceived = 9_500_000
        let m = seen.metrics(anchor: anchor, throughProxy: false)
        XCTAssertEqual(m.timeline.responseEnd, anchor.wallMicros + 9_500)
        XCTAssertEqual(m.phases.receive, 500)
        XCTAssertEqual(m.phases.total, 9_500)
        seen.error = TransferError(errorClass: .network, message: "reset")
        XCTAssertEqual(seen.metrics(anchor: anchor, throughProxy: false).phases.total, 10_000)
    }

    /// A status line seen before the response began (an interim answer) is no status; without one, neither its
    /// text nor its type is kept.
    func testNoResponseNoStatus() {
        var seen = observation()
        seen.responseStart = nil
        let m = seen.metrics(anchor: anchor, throughProxy: false)
        XCTAssertNil(m.statusCode)
        XCTAssertNil(m.statusText)
        XCTAssertNil(m.contentType)
    }

    func testReuseAndExpectContinueAndRetryWait() {
        var seen = observation()
        seen.numConnects = 0
        seen.expectSent = true
        seen.firstBodyOutAt = 1002 * ms
        seen.retryWait = .init(planned: 250_000, requested: nil)
        let m = seen.metrics(anchor: anchor, throughProxy: true)
        XCTAssertTrue(m.reusedConnection)
        XCTAssertTrue(m.proxyConnection)
        XCTAssertEqual(m.expectContinueWait, 1_000_000, "head at 2 ms, first body byte at 1002 ms")
        XCTAssertEqual(m.retryWait, 250_000)
        XCTAssertNil(m.retryAfter)

        seen.connectionReady = nil
        XCTAssertFalse(seen.metrics(anchor: anchor, throughProxy: false).reusedConnection,
                       "no connection is no reused connection")
        seen.firstBodyOutAt = nil
        seen.responseStart = nil
        XCTAssertEqual(seen.metrics(anchor: anchor, throughProxy: false).expectContinueWait, 8000,
                       "no body and no answer: the wait runs to the end")
    }

    func testAbortMessagesNameTheLimit() {
        let rules = LifecycleFixtures.rules { $0.idleTimeout = 15_000_000; $0.totalTimeout = 1_500_000 }
        XCTAssertEqual(rules.abortError(.idleTimeout).message, "no byte moved for 15.00s (idle timeout)")
        XCTAssertEqual(rules.abortError(.totalTimeout).message, "the task took longer than 1.50s (total timeout)")
        XCTAssertEqual(rules.abortError(.cancelled), TransferError(errorClass: .cancelled, message: "cancelled"))
    }
}
