import XCTest
@testable import WirelensCapture

/// Connections beyond the ones handed over (`handOverLimit`, what the text summary lists) are only counted: their
/// finished HTTP/1.x exchanges are folded into a tally as the next one starts. The summary must count them as it
/// counts the exchanges of connections handed over whole; the expected figures are those of the HTTP the test sends.
final class CountedConnectionsTests: XCTestCase {
    /// One side's bytes on a connection: a segment from the client, or (`fromServer`) from the server.
    private struct Step {
        var fromServer: Bool
        var bytes: String
    }

    private static func client(_ text: String) -> Step { Step(fromServer: false, bytes: text) }
    private static func server(_ text: String) -> Step { Step(fromServer: true, bytes: text) }

    /// A connection from client `port`: handshake, the steps, then FINs both ways, or the server's reset after the
    /// last step (`reset`).
    private static func connection(_ capture: inout CraftedCapture, port: UInt16, _ steps: [Step], reset: Bool = false) {
        capture.builder.source.port = port
        var c: UInt32 = 1000, s: UInt32 = 5000
        capture.send(seq: c, ack: 0, flags: .syn)
        capture.send(seq: s, ack: c &+ 1, flags: [.syn, .ack], fromServer: true)
        c &+= 1
        s &+= 1
        capture.send(seq: c, ack: s, flags: .ack)
        for step in steps {
            let bytes = Array(step.bytes.utf8)
            if step.fromServer {
                capture.send(seq: s, ack: c, flags: [.ack, .psh], payload: bytes, fromServer: true)
                s &+= UInt32(bytes.count)
            } else {
                capture.send(seq: c, ack: s, flags: [.ack, .psh], payload: bytes)
                c &+= UInt32(bytes.count)
            }
        }
        if reset {
            capture.send(seq: s, ack: c, flags: [.rst, .ack], fromServer: true)
            return
        }
        capture.send(seq: c, ack: s, flags: [.fin, .ack])
        capture.send(seq: s, ack: c &+ 1, flags: [.fin, .ack], fromServer: true)
        capture.send(seq: c &+ 1, ack: s &+ 1, flags: .ack)
    }

    private static func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n" }
    private static func ok(_ body: String) -> String { "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" }

    /// Six connections: keep-alive, pipelined, HEAD, 100-continue, a reset inside a body, an unanswered request.
    private static func capture(handOverLimit: Int?) -> CraftedCapture {
        var capture = CraftedCapture()
        capture.analysis = CaptureAnalyzer.Analysis(linkType: .ethernet, handOverLimit: handOverLimit ?? .max)
        // 3 exchanges one after the other.
        connection(&capture, port: 40001, [client(get("/1")), server(ok("one")), client(get("/2")), server(ok("two")),
                                           client(get("/3")), server(ok("three"))])
        // 2 requests in one segment (the second pipelined, depth 2), both responses in one segment.
        connection(&capture, port: 40002, [client(get("/a") + get("/b")), server(ok("a") + ok("b"))])
        // A HEAD (its response has no body despite its Content-Length), then a GET.
        connection(&capture, port: 40003, [client("HEAD /h HTTP/1.1\r\nHost: h\r\n\r\n"),
                                           server("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"),
                                           client(get("/g")), server(ok("g"))])
        // A POST answered 100 Continue before its body, then 204.
        connection(&capture, port: 40004, [client("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n"
                                                  + "Expect: 100-continue\r\n\r\n"),
                                           server("HTTP/1.1 100 Continue\r\n\r\n"), client("body"),
                                           server("HTTP/1.1 204 No Content\r\n\r\n")])
        // A response body cut by the server's reset: the exchange is not complete.
        connection(&capture, port: 40005, [client(get("/r")), server("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")],
                   reset: true)
        // A request never answered.
        connection(&capture, port: 40006, [client(get("/n"))])
        return capture
    }

    func testCountedConnectionsSumUpAsTheExchangesSent() {
        for limit in [nil, 0, 1, 3] {
            var capture = Self.capture(handOverLimit: limit)
            var report = CaptureReport(file: "crafted", filter: nil, linkType: .ethernet, snapshotLength: 65535)
            var handedOver: [TCPConnection] = []
            capture.analysis.complete(into: &report) { handedOver.append($0) }
            let s = report.summary
            let label = "handOverLimit \(limit.map(String.init) ?? "none")"
            XCTAssertEqual(handedOver.map(\.index).sorted(), Array(0..<min(limit ?? 6, 6)), label)
            XCTAssertEqual(s.connections, 6, label)
            XCTAssertEqual(s.exchanges, 10, label)
            XCTAssertEqual(s.http1Exchanges, 10, label)
            XCTAssertEqual(s.completeExchanges, 8, label)
            XCTAssertEqual(s.pipelinedRequests, 1, label)
            XCTAssertEqual(s.maxPipelineDepth, 2, label)
            XCTAssertEqual(s.maxExchangesPerConnection, 3, label)
            XCTAssertEqual(s.servers.map(\.exchanges), [10], label)
            XCTAssertEqual(s.servers.map(\.connections), [6], label)
            // What is handed over is whole: the first connection's three exchanges with their targets.
            if let first = handedOver.first(where: { $0.index == 0 }) {
                XCTAssertEqual(first.exchanges.map(\.target), ["/1", "/2", "/3"], label)
            }
        }
    }

    /// A connection only counted holds the exchanges under way, not all it carried: memory follows the open
    /// exchanges of a long keep-alive connection.
    func testACountedKeepAliveConnectionHoldsOnlyTheExchangeUnderWay() {
        var capture = CraftedCapture()
        capture.analysis = CaptureAnalyzer.Analysis(linkType: .ethernet, handOverLimit: 0)
        capture.send(seq: 1000, ack: 0, flags: .syn)
        capture.send(seq: 5000, ack: 1001, flags: [.syn, .ack], fromServer: true)
        capture.send(seq: 1001, ack: 5001, flags: .ack)
        var c: UInt32 = 1001, s: UInt32 = 5001
        for i in 0..<200 {
            let request = Array(Self.get("/\(i)").utf8), response = Array(Self.ok("x").utf8)
            capture.send(seq: c, ack: s, flags: [.ack, .psh], payload: request)
            c &+= UInt32(request.count)
            capture.send(seq: s, ack: c, flags: [.ack, .psh], payload: response, fromServer: true)
            s &+= UInt32(response.count)
        }
        XCTAssertEqual(capture.analysis.retained.exchanges, 1)
        var report = CaptureReport(file: "crafted", filter: nil, linkType: .ethernet, snapshotLength: 65535)
        capture.analysis.complete(into: &report) { _ in XCTFail("no connection is handed over") }
        XCTAssertEqual(report.summary.exchanges, 200)
        XCTAssertEqual(report.summary.completeExchanges, 200)
    }
}
