import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensCapture
#if canImport(Glibc)
import Glibc
#endif

/// Exchanges cut short by a reset or a close, and captures that begin in the middle of a stream: crafted captures
/// read by Wirelens and by tshark, whose counts (and the bytes the test put in) are the oracle.
final class CutShortAndMidStreamTests: XCTestCase {
    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    /// Writes `capture` as a pcap file, removed after the test.
    private func written(_ capture: CraftedCapture, _ name: String) -> String {
        let path = WirelensCLI.temporaryPath(name)
        capture.write(to: path)
        toRemove.append(path)
        return path
    }

    /// The sum of tshark's `tcp.len` over the frames matching `filter`.
    private func tsharkPayload(_ path: String, _ filter: String) throws -> Int64 {
        try TsharkOracle.values(path, filter: filter, field: "tcp.len").reduce(0) { $0 + (Int64($1) ?? 0) }
    }

    /// A response announcing a 100 000-byte body, of which 4 302 bytes arrive before the server ends the connection
    /// with `closing` (RST, or FIN): the bytes that arrived are counted and the exchange is marked cut short, in the
    /// report, its JSON and its text.
    private func checkBodyCut(by closing: TCPFlags, name: String) throws {
        var capture = CraftedCapture(clientPort: 40000, serverPort: 80)
        var c: UInt32 = 1000, s: UInt32 = 5000
        capture.send(seq: c, ack: 0, flags: .syn)
        capture.send(seq: s, ack: c + 1, flags: [.syn, .ack], fromServer: true)
        c += 1
        s += 1
        capture.send(seq: c, ack: s, flags: .ack)
        let request = Array("GET /big HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        capture.send(seq: c, ack: s, flags: [.ack, .psh], payload: request)
        c += UInt32(request.count)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n".utf8)
        capture.send(seq: s, ack: c, flags: .ack, payload: head, fromServer: true)
        s += UInt32(head.count)
        var sent: Int64 = 0
        for size in [1448, 1448, 1406] {
            capture.send(seq: s, ack: c, flags: .ack, payload: [UInt8](repeating: 0x61, count: size), fromServer: true)
            s += UInt32(size)
            sent += Int64(size)
        }
        capture.send(seq: c, ack: s, flags: .ack)
        capture.send(seq: s, ack: c, flags: closing.union(.ack), fromServer: true)

        let path = written(capture, name)
        let tsharkBody = try tsharkPayload(path, "tcp.srcport==80") - Int64(head.count)
        XCTAssertEqual(tsharkBody, 4302)
        XCTAssertEqual(tsharkBody, sent)

        let report = capture.report()
        let exchange = try XCTUnwrap(report.connections.first?.exchanges.first)
        XCTAssertEqual(report.connections.first?.exchanges.count, 1)
        XCTAssertEqual(exchange.statusCode, 200)
        XCTAssertEqual(exchange.responseBodyBytes, tsharkBody, "the body bytes on the wire before the \(name)")
        XCTAssertTrue(exchange.cutShort)
        XCTAssertFalse(exchange.complete)

        let json = try WirelensCLI.run(["capture", "analyze", path, "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let connections = try XCTUnwrap(object["connections"] as? [[String: Any]])
        let exchanges = try XCTUnwrap(connections.first?["exchanges"] as? [[String: Any]])
        XCTAssertEqual((exchanges.first?["responseBodyBytes"] as? NSNumber)?.int64Value, tsharkBody)
        XCTAssertEqual(exchanges.first?["cutShort"] as? Bool, true)
        let text = try WirelensCLI.run(["capture", "analyze", path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("cut short"), text.stdout)
    }

    func testAResetInsideAResponseBodyCountsTheBytesThatArrived() throws {
        try checkBodyCut(by: .rst, name: "reset.pcap")
    }

    func testAFinInsideAResponseBodyOfKnownLengthCountsTheBytesThatArrived() throws {
        try checkBodyCut(by: .fin, name: "fin.pcap")
    }

    /// A complete request and its response with a `body`-byte body, on an established connection.
    private func exchange(_ capture: inout CraftedCapture, _ c: inout UInt32, _ s: inout UInt32, path: String,
                          body: Int) {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        capture.send(seq: c, ack: s, flags: [.ack, .psh], payload: request)
        c += UInt32(request.count)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body)\r\n\r\n".utf8)
            + [UInt8](repeating: 0x62, count: body)
        capture.send(seq: s, ack: c, flags: [.ack, .psh], payload: response, fromServer: true)
        s += UInt32(response.count)
        capture.send(seq: c, ack: s, flags: .ack)
    }

    /// Checks the exchanges of `capture`'s only connection against tshark's requests and responses; returns it.
    @discardableResult
    private func checkAgainstTshark(_ capture: inout CraftedCapture, serverPort: UInt16, name: String,
                                    bodies: [Int64]) throws -> TCPConnection {
        let path = written(capture, name)
        let decodeAs = "tcp.port==\(serverPort),http"
        let uris = try TsharkOracle.values(path, filter: "http.request", field: "http.request.uri", decodeAs: decodeAs)
        let statuses = try TsharkOracle.values(path, filter: "http.response", field: "http.response.code",
                                               decodeAs: decodeAs)
        XCTAssertEqual(uris, ["/b", "/c"])
        XCTAssertEqual(statuses, ["200", "200"])

        let report = capture.report()
        XCTAssertEqual(report.connections.count, 1)
        let connection = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(connection.server.port, serverPort, "the server is the side that sent the status lines")
        XCTAssertEqual(connection.client.port, 40000)
        XCTAssertEqual(connection.exchanges.map { $0.target ?? "?" }, uris, "\(connection.notes)")
        XCTAssertEqual(connection.exchanges.map { $0.statusCode.map(String.init) ?? "?" }, statuses)
        XCTAssertEqual(connection.exchanges.map(\.responseBodyBytes), bodies)
        XCTAssertTrue(connection.exchanges.allSatisfy(\.complete))
        XCTAssertEqual(connection.applicationProtocol, "http/1.1")
        XCTAssertEqual(report.summary.servers.map(\.server.port), [serverPort])
        return connection
    }

    func testWithoutHandshakeTheServerIsTheSideSendingStatusLinesWhateverItsPort() throws {
        // The server on 55555, the client on 40000: the lower port is the client's.
        var capture = CraftedCapture(clientPort: 40000, serverPort: 55555)
        var c: UInt32 = 7000, s: UInt32 = 9000
        capture.send(seq: c, ack: s, flags: .ack)  // a bare ACK first: no payload to tell the roles
        exchange(&capture, &c, &s, path: "/b", body: 5)
        exchange(&capture, &c, &s, path: "/c", body: 300)
        try checkAgainstTshark(&capture, serverPort: 55555, name: "high-port.pcap", bodies: [5, 300])
    }

    func testACaptureBeginningInsideAResponseBodyFindsTheExchangesAfterIt() throws {
        for serverPort: UInt16 in [80, 55555] {
            var capture = CraftedCapture(clientPort: 40000, serverPort: serverPort)
            var c: UInt32 = 7000, s: UInt32 = 9000
            // The tail of a response whose head came before the capture: lines of text, then bytes without a line end.
            let tail = Array(String(repeating: "some text of the body, HTTP/1.1 in the middle\n", count: 20).utf8)
                + [UInt8](repeating: 0x7a, count: 300)
            capture.send(seq: s, ack: c, flags: .ack, payload: tail, fromServer: true)
            s += UInt32(tail.count)
            capture.send(seq: c, ack: s, flags: .ack)
            exchange(&capture, &c, &s, path: "/b", body: 300)
            exchange(&capture, &c, &s, path: "/c", body: 11)
            let connection = try checkAgainstTshark(&capture, serverPort: serverPort,
                                                    name: "mid-body-\(serverPort).pcap", bodies: [300, 11])
            let notes = connection.notes
            XCTAssertTrue(notes.contains { $0.contains("\(tail.count) bytes") }, "\(notes)")
        }
    }

    func testAMidStreamConnectionThatIsNotHTTPSaysHowManyBytesItPassedOver() throws {
        var capture = CraftedCapture(clientPort: 40000, serverPort: 5432)
        var random = SystemRandomNumberGenerator()
        let up = (0..<700).map { _ in UInt8.random(in: 0...255, using: &random) }
        let down = (0..<1300).map { _ in UInt8.random(in: 0...255, using: &random) }
        capture.send(seq: 100, ack: 900, flags: [.ack, .psh], payload: up)
        capture.send(seq: 900, ack: 800, flags: [.ack, .psh], payload: down, fromServer: true)
        let connection = try XCTUnwrap(capture.report().connections.first)
        XCTAssertEqual(connection.exchanges.count, 0)
        // Random bytes may hold a line end: what was passed over is every byte of each side.
        XCTAssertTrue(connection.notes.contains { $0.contains("client's stream: none of its \(up.count) bytes") },
                      "\(connection.notes)")
        XCTAssertTrue(connection.notes.contains { $0.contains("server's stream: none of its \(down.count) bytes") },
                      "\(connection.notes)")
    }
}
