import XCTest
@testable import WirelensCurl

/// libcurl's informational text, parsed without sockets.
final class DebugTextTests: XCTestCase {
    private func fact(_ line: String) -> DebugText.Fact? {
        let bytes = Array(line.utf8)
        let fromBytes = bytes.withUnsafeBufferPointer { DebugText.parse(bytes: $0) }
        XCTAssertEqual(fromBytes, DebugText.parse(Substring(line)), "byte and text parsing disagree on '\(line)'")
        return fromBytes
    }

    func testLinesOfLibcurl788() {
        XCTAssertEqual(fact("Connected to 127.0.0.1 (127.0.0.1) port 8080 (#3)\n"), .connected(id: 3))
        XCTAssertEqual(fact("Re-using existing connection #12 with host localhost\n"), .reused(id: 12))
        XCTAssertEqual(fact("SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384\n"),
                       .tls(version: "TLSv1.3", cipher: "TLS_AES_256_GCM_SHA384"))
        XCTAssertEqual(fact("ALPN: server accepted h2\n"), .alpn("h2"))
        XCTAssertEqual(fact("ALPN, server accepted to use http/1.1\n"), .alpn("http/1.1"))
        XCTAssertNil(fact("Connection #0 to host 127.0.0.1 left intact\n"))
        // transfer.c's Curl_retry_request in 7.88: the request is resent on a fresh connection.
        XCTAssertEqual(fact("Connection died, retrying a fresh connect (retry count: 1)\n"),
                       .retryingFreshConnect(refusedStream: false))
        XCTAssertEqual(fact("REFUSED_STREAM, retrying a fresh connect\n"),
                       .retryingFreshConnect(refusedStream: true))
        XCTAssertNil(fact("Connection died, tried 5 times before giving up\n"))
        XCTAssertNil(fact("  Trying 127.0.0.1:8080...\n"))
        // doh.c's doh_done, on the transfer the DoH requests resolve for.
        XCTAssertEqual(fact("a DoH request is completed, 1 to go\n"), .dohRequestCompleted)
        XCTAssertEqual(fact("DoH request SSL peer certificate or SSH remote key was not OK\n"),
                       .dohRequestFailed("SSL peer certificate or SSH remote key was not OK"))
        XCTAssertNil(fact("DoH Host name: wirelens.test\n"))
        XCTAssertNil(fact("DoH A: 127.0.0.1\n"))
        XCTAssertTrue(DebugText.asksForContinue("PUT /x HTTP/1.1\r\nExpect: 100-continue\r\n"))
        XCTAssertFalse(DebugText.asksForContinue("GET /x HTTP/1.1\r\nAccept: */*\r\n"))
    }
}
