import WirelensCore
import XCTest
@testable import WirelensProbe

/// `ResentAttempts` sets the current attempt's libcurl figures apart from the attempts libcurl gave up on. Oracle:
/// libcurl 7.88's documented counting (its timers are reset only when a transfer starts, so after a resend its
/// offsets include the earlier attempt's; CURLINFO_REQUEST_SIZE is the size of all requests issued), hand-computed.
final class ResentAttemptsTests: XCTestCase {
    private func abandoned(requestBytes: Int64) -> TransferObservation {
        TransferObservation(
            kind: .initial, url: "http://a.example/", method: "GET", hostIsIPLiteral: false, usesTLS: false,
            fetchStart: 0, connectionReady: 1, requestEnd: 2, responseStart: nil, headerOutAt: 1, firstBodyOutAt: nil,
            expectSent: false, end: 3, curlTimers: CurlTimers(), numConnects: 0, protocolName: nil,
            requestHeaderBytes: requestBytes, responseHeaderBytes: 0, connectionId: 0, localAddress: nil, localPort: nil,
            remoteAddress: nil, remotePort: nil, tlsVersion: nil, tlsCipher: nil, alpn: nil, status: nil,
            statusText: nil, contentType: nil, responseHeaders: nil, requestBodyBytes: 0, responseBodyBytes: 0,
            retryWait: nil, error: nil, tcp: nil, readsTCP: false)
    }

    func testWithoutAResendLibcurlsTimersAreTheAttempts() {
        let resends = ResentAttempts()
        let t = CurlTimers(nameLookup: 100, connect: 300, appConnect: 0, preTransfer: 350, startTransfer: 900, total: 1000)
        XCTAssertEqual(resends.attemptTimers(t), t)
        XCTAssertEqual(resends.attemptRequestBytes(78), 78)
    }

    func testAfterAResendTheTimersAreSinceTheResendAndTotalStaysTheTransfers() {
        var resends = ResentAttempts()
        // The first attempt went out on a reused connection: no lookup or connect of its own; libcurl gave up at
        // preTransfer 40 µs.
        resends.abandon(abandoned(requestBytes: 78),
                        timers: CurlTimers(nameLookup: 10, connect: 10, appConnect: 0, preTransfer: 40, startTransfer: 0,
                                           total: 2000))
        // The resend connected afresh: 10 + 5 lookup, 10 + 290 connect, 40 + 310 pretransfer, first byte at 900.
        let later = CurlTimers(nameLookup: 15, connect: 300, appConnect: 0, preTransfer: 350, startTransfer: 900,
                               total: 3000)
        XCTAssertEqual(resends.attemptTimers(later),
                       CurlTimers(nameLookup: 5, connect: 290, appConnect: 0, preTransfer: 310, startTransfer: 900,
                                  total: 3000))
        // libcurl counted both requests' 78 header bytes.
        XCTAssertEqual(resends.attemptRequestBytes(156), 78)
        XCTAssertEqual(resends.abandoned.count, 1)
        resends.restartedInLibcurl()
        XCTAssertEqual(resends.attemptTimers(later), later, "added back, libcurl's timers started again")
    }

    func testATimerBelowTheResendsReadsZero() {
        var resends = ResentAttempts()
        resends.abandon(abandoned(requestBytes: 500),
                        timers: CurlTimers(nameLookup: 0, connect: 0, appConnect: 0, preTransfer: 40, startTransfer: 30,
                                           total: 50))
        let t = CurlTimers(nameLookup: 0, connect: 0, appConnect: 0, preTransfer: 20, startTransfer: 0, total: 60)
        XCTAssertEqual(resends.attemptTimers(t).preTransfer, 0)
        XCTAssertEqual(resends.attemptTimers(t).startTransfer, 0)
        XCTAssertEqual(resends.attemptRequestBytes(100), 0, "never below zero")
    }
}
