import WirelensCore
import XCTest
@testable import WirelensCapture

/// HTTP/1.x message framing and request/response pairing, fed byte streams directly.
final class HTTPConversationTests: XCTestCase {
    private func feed(_ conversation: inout HTTPConversation, client: Bool, _ text: String, at time: Int64,
                      pieces: Int = 1) {
        let bytes = Array(text.utf8)
        let size = max(1, (bytes.count + pieces - 1) / pieces)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { conversation.receive($0, fromClient: client, time: time) }
            start = end
        }
    }

    private func summary(_ c: HTTPConversation) -> [String] {
        c.exchanges.map { e in
            "\(e.method ?? "-") \(e.target ?? "-") \(e.statusCode.map(String.init) ?? "-") "
                + "req \(e.requestBodyBytes) resp \(e.responseBodyBytes) "
                + "\(e.pipelined ? "pipelined \(e.pipelineDepth)" : "serial") \(e.complete ? "complete" : "open")"
        }
    }

    func testContentLengthChunkedAndCloseDelimitedBodiesInAnySplit() {
        let requests = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            + "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n"
            + "GET /d HTTP/1.1\r\n\r\n"
        let responses = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd"
            + "HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n"
            + "HTTP/1.0 200 OK\r\n\r\nuntil the end"
        for pieces in [1, 2, 3, 7, 50, 400] {
            var c = HTTPConversation()
            feed(&c, client: true, requests, at: 1, pieces: pieces)
            feed(&c, client: false, responses, at: 2, pieces: pieces)
            c.closed(fromClient: false, time: 3)
            XCTAssertEqual(summary(c), [
                "GET /a 200 req 0 resp 4 serial complete",
                "POST /b 201 req 5 resp 10 pipelined 2 complete",
                "PUT /c 204 req 5 resp 0 pipelined 3 complete",
                "GET /d 200 req 0 resp 13 pipelined 4 complete",
            ], "split into \(pieces) pieces")
            XCTAssertEqual(c.exchanges.last?.responseEndAt, 3, "close-delimited body ends at the FIN")
            XCTAssertEqual(c.detected, .http1)
        }
    }

    /// The framing headers in any letter case are read, and the headers that begin with the same letters (or are
    /// too short to be one) are passed over: the bodies' lengths come from the bytes written here.
    func testFramingHeadersInAnyCaseAmongLookalikes() {
        let requests = "POST /a HTTP/1.1\r\nCONTENT-TYPE: text/plain\r\nConnection: keep-alive\r\nTE: trailers\r\n"
            + "Trailer: X\r\nUser-Agent: t\r\nC: 1\r\nContent-LENGTH:3\r\n\r\nabc"
            + "PUT /b HTTP/1.1\r\nTransfer-Encodings: x\r\ncontent-length-x: 9\r\ntRaNsFeR-eNcOdInG: gzip, CHUNKED\r\n\r\n"
            + "4\r\nwxyz\r\n0\r\n\r\n"
            + "GET /c HTTP/1.1\nUpgradeX: no\nUPGRADE: h2c\nContent-Type: a\n\n"
        let responses = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCache-Control: no\r\ncontent-length: 2\r\n\r\nok"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"
            + "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nupgrade: H2C\r\n\r\n"
        for pieces in [1, 3, 11, 500] {
            var c = HTTPConversation()
            feed(&c, client: true, requests, at: 1, pieces: pieces)
            feed(&c, client: false, responses, at: 2, pieces: pieces)
            XCTAssertEqual(summary(c), [
                "POST /a 200 req 3 resp 2 serial complete",
                "PUT /b 200 req 4 resp 5 pipelined 2 complete",
                "GET /c 101 req 0 resp 0 pipelined 3 complete",
            ], "split into \(pieces) pieces")
            XCTAssertEqual(c.detected, .h2c, "split into \(pieces) pieces")
        }
    }

    func testSerialExchangesAreNotPipelinedAndKeepTheirTimes() {
        var c = HTTPConversation()
        for i in 0..<3 {
            let t = Int64(i * 100)
            feed(&c, client: true, "GET /\(i) HTTP/1.1\r\n\r\n", at: t)
            feed(&c, client: false, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", at: t + 10)
            feed(&c, client: false, "ok", at: t + 20)
        }
        XCTAssertEqual(summary(c).filter { $0.contains("serial complete") }.count, 3)
        XCTAssertEqual(c.exchanges.map(\.requestStartAt), [0, 100, 200])
        XCTAssertEqual(c.exchanges.map(\.responseStartAt), [10, 110, 210])
        XCTAssertEqual(c.exchanges.map(\.responseEndAt), [20, 120, 220])
        XCTAssertEqual(c.exchanges.map(\.wait), [10, 10, 10])
    }

    func testEightRequestsInOneSegmentGetEightResponses() {
        var c = HTTPConversation()
        let batch = (0..<8).map { "GET /p\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        feed(&c, client: true, batch, at: 5)
        let answers = (0..<8).map { "HTTP/1.1 200 OK\r\nContent-Length: \(String($0).count)\r\n\r\n\($0)" }.joined()
        feed(&c, client: false, answers, at: 9, pieces: 3)
        XCTAssertEqual(c.exchanges.count, 8)
        XCTAssertEqual(c.exchanges.map(\.target), (0..<8).map { "/p\($0)" })
        XCTAssertEqual(c.exchanges.map(\.pipelineDepth), Array(1...8))
        XCTAssertEqual(c.exchanges.filter(\.pipelined).count, 7)
        XCTAssertTrue(c.exchanges.allSatisfy { $0.statusCode == 200 && $0.complete })
    }

    func testHeadAndInterimResponsesHaveNoBody() {
        var c = HTTPConversation()
        feed(&c, client: true, "HEAD /big HTTP/1.1\r\n\r\n", at: 1)
        feed(&c, client: false, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", at: 2)
        feed(&c, client: true, "PUT /u HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n", at: 3)
        feed(&c, client: false, "HTTP/1.1 100 Continue\r\n\r\n", at: 4)
        feed(&c, client: true, "abc", at: 5)
        feed(&c, client: false, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", at: 6)
        XCTAssertEqual(summary(c), ["HEAD /big 200 req 0 resp 0 serial complete", "PUT /u 201 req 3 resp 0 serial complete"])
        XCTAssertEqual(c.exchanges[1].interimStatuses, [100])
        XCTAssertEqual(c.exchanges[1].interimAt, 4)
        XCTAssertEqual(c.exchanges[1].responseStartAt, 6, "the final response starts after the interim one")
    }

    /// Each response is framed by the method of the request it answers, in order, past the first 64 (HEAD: no body,
    /// whatever its Content-Length says), whether the requests come one by one or all at once.
    func testHeadResponsesPairWithTheirRequestsAcrossManyPipelined() {
        let methods = (0..<70).map { $0 % 3 == 1 ? "HEAD" : "GET" }
        let requests = methods.enumerated().map { "\($1) /\($0) HTTP/1.1\r\n\r\n" }
        let responses = methods.map { "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n" + ($0 == "HEAD" ? "" : "abc") }
        var together = HTTPConversation()
        feed(&together, client: true, requests.joined(), at: 1)
        feed(&together, client: false, responses.joined(), at: 2, pieces: 7)
        var alternating = HTTPConversation()
        for (request, response) in zip(requests, responses) {
            feed(&alternating, client: true, request, at: 1)
            feed(&alternating, client: false, response, at: 2)
        }
        for c in [together, alternating] {
            XCTAssertEqual(c.exchanges.map(\.method), methods)
            XCTAssertEqual(c.exchanges.map(\.responseBodyBytes), methods.map { $0 == "HEAD" ? 0 : 3 })
            XCTAssertTrue(c.exchanges.allSatisfy { $0.statusCode == 200 && $0.complete })
        }
    }

    /// The text of the start lines, split anywhere: each request's method (GET, and methods that begin like it),
    /// target and version, common or not; a response's version only where no request was captured; a status code
    /// with a non-digit ends the reading of responses.
    func testStartLineTextOfRequestsAndResponses() {
        func shown(_ c: HTTPConversation) -> [String] {
            c.exchanges.map {
                "\($0.method ?? "-") \($0.target ?? "-") \($0.httpVersion ?? "-") \($0.statusCode.map(String.init) ?? "-")"
            }
        }
        for pieces in [1, 2, 5, 19, 500] {
            var c = HTTPConversation()
            feed(&c, client: true, "GET /a HTTP/1.1\r\n\r\nGETX /b HTTP/1.0\r\n\r\nM-_ /c?d=1 HTTP/2.0\r\n\r\n"
                    + "GET /e HTTP/1.1\r\n\r\n", at: 1, pieces: pieces)
            feed(&c, client: false, "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 404 Not Found\r\n"
                    + "content-length: 0\r\n\r\nHTTP/1.1 201\r\nContent-Length: 0\r\n\r\nHTTP/1.1 2x0 OK\r\n\r\n",
                 at: 2, pieces: pieces)
            XCTAssertEqual(shown(c), ["GET /a HTTP/1.1 200", "GETX /b HTTP/1.0 404", "M-_ /c?d=1 HTTP/2.0 201",
                                      "GET /e HTTP/1.1 -"], "in \(pieces) pieces")
            XCTAssertEqual(c.notes, ["responses not parsed further: not an HTTP/1.x status line: 'HTTP/1.1 2x0 OK'"])
        }
        for pieces in [1, 4, 60] {
            var c = HTTPConversation()
            c.beginMidStream()
            feed(&c, client: false, "ody bytes\r\nHTTP/1.0 204 No Content\r\n\r\nHTTP/1.7 304 Not Modified\r\n\r\n",
                 at: 1, pieces: pieces)
            XCTAssertEqual(shown(c), ["- - HTTP/1.0 204", "- - HTTP/1.7 304"], "in \(pieces) pieces")
        }
    }

    func testGapInsideABodyIsSkippedAndElsewhereStopsParsing() {
        var c = HTTPConversation()
        feed(&c, client: true, "GET / HTTP/1.1\r\n\r\n", at: 1)
        feed(&c, client: false, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab", at: 2)
        c.skip(6, fromClient: false, time: 3)
        feed(&c, client: false, "cd", at: 4)
        XCTAssertEqual(summary(c), ["GET / 200 req 0 resp 10 serial complete"])
        c.skip(5, fromClient: true, time: 5)
        XCTAssertFalse(c.wantsBytes(fromClient: true))
        XCTAssertTrue(c.notes.contains { $0.contains("5 bytes were not captured") }, "\(c.notes)")
    }

    func testTLSAndPrefaceAndGarbageAreRecognised() {
        var tls = HTTPConversation()
        [UInt8]([0x16, 0x03, 0x01, 0x00, 0x10]).withUnsafeBytes { tls.receive($0, fromClient: true, time: 1) }
        XCTAssertEqual(tls.detected, .tls)
        XCTAssertTrue(tls.exchanges.isEmpty)

        var h2 = HTTPConversation()
        feed(&h2, client: true, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", at: 1)
        XCTAssertEqual(h2.detected, .h2c)
        XCTAssertTrue(h2.exchanges.isEmpty)

        var junk = HTTPConversation()
        feed(&junk, client: true, "hello there\r\n", at: 1)
        XCTAssertEqual(junk.detected, .other)
        XCTAssertFalse(junk.wantsBytes(fromClient: true))

        var upgrade = HTTPConversation()
        feed(&upgrade, client: true, "GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", at: 1)
        feed(&upgrade, client: false, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n\0\0\u{4}", at: 2)
        XCTAssertEqual(upgrade.detected, .h2c)
        XCTAssertEqual(upgrade.exchanges.map(\.statusCode), [101])
        XCTAssertTrue(upgrade.wantsBytes(fromClient: false), "the bytes after the 101 are HTTP/2 frames")
        XCTAssertEqual(upgrade.allExchanges.map(\.stream), [1])
    }

    func testSecretsInTargetsAreMasked() {
        var c = HTTPConversation()
        feed(&c, client: true, "GET /x?token=abc&page=2 HTTP/1.1\r\n\r\n", at: 1)
        XCTAssertEqual(c.exchanges.first?.target, "/x?token=[REDACTED]&page=2")
        // The shortcut for harmless targets gives what the Redactor gives, with a fresh redactor and with one
        // that has seen the other targets (their harmless names remembered, in both orders).
        let targets = ["/plain", "/a?page=2&n=3", "/a?page=2&api_sig=x", "/a?%74oken=x", "/a#access_token=y",
                       "/a?x=1#frag", "/a?Secret=1", "/p@th?q=1", "/a?page=2&n=3", "/a?page=2&n=3&key=k"]
        let shared = TargetRedactor(), backwards = TargetRedactor()
        for target in targets {
            XCTAssertEqual(TargetRedactor().redact(target), Redactor.url(target), target)
            XCTAssertEqual(shared.redact(target), Redactor.url(target), target)
        }
        for target in targets.reversed() {
            XCTAssertEqual(backwards.redact(target), Redactor.url(target), target)
        }
    }

    /// Targets read again (the redactor's table of targets seen, shared by the connections of a capture) are
    /// masked as the first time: a repeated secret never comes back unmasked, nor a harmless target masked.
    func testRepeatedTargetsAreMaskedEveryTime() {
        let shared = TargetRedactor()
        let requests = "GET /x?token=abc&page=2 HTTP/1.1\r\n\r\nGET /plain?page=2 HTTP/1.1\r\n\r\n"
            + "GET /x?token=abc&page=2 HTTP/1.1\r\n\r\nGET https://u:pw@h/y HTTP/1.1\r\n\r\n"
        for _ in 0..<2 {
            var c = HTTPConversation(targets: shared)
            feed(&c, client: true, requests + requests, at: 1, pieces: 3)
            XCTAssertEqual(c.exchanges.map(\.target), Array(repeating: ["/x?token=[REDACTED]&page=2", "/plain?page=2",
                                                                       "/x?token=[REDACTED]&page=2",
                                                                       "https://[REDACTED]@h/y"], count: 2).flatMap { $0 })
        }
        // The byte path gives what the string path gives, for targets first seen and seen again.
        let targets = ["/plain", "/a?page=2&n=3", "/a?page=2&api_sig=x", "/a?%74oken=x", "/a#access_token=y",
                       "/a?x=1#frag", "/a?Secret=1", "/p@th?q=1", "", "/exactly8", "/sixteen-bytes-xy"]
        for target in targets + targets {
            let viaBytes = Array(target.utf8).withUnsafeBytes { shared.redact($0) }
            XCTAssertEqual(viaBytes, TargetRedactor().redact(target), target)
        }
    }

    /// An HTTP/2 frame: 9-byte header and payload.
    private func frame(_ type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return [UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)]
            + payload
    }

    /// An h2c request's `:path` goes through the same redactor as an HTTP/1.1 target.
    func testSecretsInHTTP2PathsAreMasked() {
        var c = HTTPConversation()
        let path = Array("/o?X-Amz-Signature=SeKrit&n=1".utf8)
        // :method GET (static 2), :scheme http (static 6), :path as a literal without indexing (name: static 4).
        let block: [UInt8] = [0x82, 0x86, 0x04, UInt8(path.count)] + path
        let client = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(4, flags: 0, stream: 0, [])
            + frame(1, flags: 0x5, stream: 1, block)
        client.withUnsafeBytes { c.receive($0, fromClient: true, time: 1) }
        XCTAssertEqual(c.detected, .h2c)
        XCTAssertEqual(c.allExchanges.map(\.target), ["/o?X-Amz-Signature=[REDACTED]&n=1"])
    }

    func testUpgradeToH2CReadsTheFramesAfterThe101() {
        var c = HTTPConversation()
        feed(&c, client: true, "GET /up HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
             + "Connection: Upgrade, HTTP2-Settings\r\n\r\n", at: 1)
        // The 101, the server's SETTINGS and stream 1's response (":status 200" is HPACK static index 8) at once.
        let server = Array("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8)
            + frame(4, flags: 0, stream: 0, []) + frame(1, flags: 0x4, stream: 1, [0x88])
            + frame(0, flags: 0x1, stream: 1, Array("hello".utf8))
        server.withUnsafeBytes { c.receive($0, fromClient: false, time: 2) }
        // The client's preface, SETTINGS, then a second request on stream 3 (:method GET, :path /, :scheme http).
        let client = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(4, flags: 0, stream: 0, [])
            + frame(1, flags: 0x5, stream: 3, [0x82, 0x84, 0x86])
        client.withUnsafeBytes { c.receive($0, fromClient: true, time: 3) }
        // ":status 404" is static index 13; the response ends the stream.
        frame(1, flags: 0x5, stream: 3, [0x8d]).withUnsafeBytes { c.receive($0, fromClient: false, time: 4) }

        XCTAssertEqual(c.detected, .h2c)
        let exchanges = c.allExchanges
        XCTAssertEqual(exchanges.map(\.stream), [1, 3])
        XCTAssertEqual(exchanges.map(\.target), ["/up", "/"])
        XCTAssertEqual(exchanges.map(\.statusCode), [200, 404])
        XCTAssertEqual(exchanges[0].interimStatuses, [101])
        XCTAssertEqual(exchanges[0].responseBodyBytes, 5)
        XCTAssertEqual(exchanges.map(\.responseEndAt), [2, 4])
        XCTAssertEqual(c.http2?.summary.streams, 2)
        XCTAssertEqual(c.http2?.summary.clientFrames, 2)
        XCTAssertEqual(c.http2?.summary.serverFrames, 4)
    }

    /// The 101 alone in its segment and the frames in the next ones (Python's server writes them apart): the
    /// switch happens at the 101, so the later frames, both ways, are still read as HTTP/2.
    func testUpgradeToH2CWhenTheFramesComeInLaterSegments() {
        var c = HTTPConversation()
        feed(&c, client: true, "GET /up HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
             + "Connection: Upgrade, HTTP2-Settings\r\n\r\n", at: 1)
        feed(&c, client: false, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n", at: 2)
        XCTAssertTrue(c.wantsBytes(fromClient: false), "the frames to come are HTTP/2")
        XCTAssertTrue(c.wantsBytes(fromClient: true), "so are the client's")
        let frames = frame(4, flags: 0, stream: 0, []) + frame(1, flags: 0x4, stream: 1, [0x88])
            + frame(0, flags: 0x1, stream: 1, Array("hello".utf8))
        frames.withUnsafeBytes { c.receive($0, fromClient: false, time: 3) }
        let client = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + frame(4, flags: 0, stream: 0, [])
        client.withUnsafeBytes { c.receive($0, fromClient: true, time: 4) }

        XCTAssertEqual(c.detected, .h2c)
        let exchanges = c.allExchanges
        XCTAssertEqual(exchanges.map(\.stream), [1])
        XCTAssertEqual(exchanges.map(\.statusCode), [200])
        XCTAssertEqual(exchanges.first?.responseBodyBytes, 5)
        XCTAssertEqual(exchanges.first?.responseEndAt, 3)
        XCTAssertEqual(c.http2?.summary.clientFrames, 1)
        XCTAssertEqual(c.http2?.summary.serverFrames, 3)
    }
}
