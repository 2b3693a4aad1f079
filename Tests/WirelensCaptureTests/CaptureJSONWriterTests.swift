import Foundation
import WirelensCore
import WirelensReport
import XCTest
@testable import WirelensCapture
import WirelensTestSupport

/// The capture document written straight to bytes is the Codable path's document, byte for byte.
final class CaptureJSONWriterTests: XCTestCase {
    /// Connections that reach every branch of the writer: no handshake, TLS, HTTP/2, idle gaps, notes with
    /// escapes, IPv6, exchanges with and without responses, interim statuses, pipelining, odd durations.
    private func variedReport() -> CaptureReport {
        var report = CaptureReport(file: "/tmp/a \"b\".pcap", filter: "tcp port 80", linkType: .ethernet,
                                   snapshotLength: 262_144)
        var plain = TCPConnection(client: Endpoint(address: IPAddress(v4: 127, 0, 0, 1), port: 40000),
                                  server: Endpoint(address: IPAddress(v4: 127, 0, 0, 1), port: 80),
                                  firstPacketAt: 1_700_000_000_123_456)
        plain.index = 3
        plain.clientISN = 1000
        plain.serverISN = 4_294_967_295
        plain.synAt = plain.firstPacketAt
        plain.synAckAt = plain.firstPacketAt + 40
        plain.handshakeAckAt = plain.firstPacketAt + 71
        plain.lastPacketAt = plain.firstPacketAt + 2_345_678
        plain.clientToServer.packets = 12
        plain.clientToServer.bytes = 1234
        plain.clientToServer.wireBytes = 1300
        plain.serverToClient.bytes = 98_765_432
        plain.serverToClient.retransmissions = 2
        plain.serverToClient.captureGaps = 1
        plain.serverToClient.captureGapBytes = 1448
        plain.end = .closed
        plain.closedBy = .server
        plain.closeStartedAt = plain.lastPacketAt - 10
        plain.idleGaps = [.init(startAt: plain.firstPacketAt + 5, duration: 1_000_001)]
        plain.idleGapCount = 1
        plain.longestSilence = 1_000_001
        plain.applicationProtocol = "http/1.1"
        plain.notes = ["a \"quoted\" note\twith a tab", "é and \u{01}"]
        var first = HTTPExchange(index: 0)
        first.method = "GET"
        first.target = "/q?a=1&b=/x"
        first.httpVersion = "HTTP/1.1"
        first.statusCode = 200
        first.interimStatuses = [100, 103]
        first.interimAt = plain.firstPacketAt + 90
        first.requestStartAt = plain.firstPacketAt + 80
        first.requestEndAt = plain.firstPacketAt + 85
        first.responseStartAt = plain.firstPacketAt + 100
        first.responseEndAt = plain.firstPacketAt + 2_000_000
        first.requestHeaderBytes = 77
        first.responseBodyBytes = 1 << 33
        var second = HTTPExchange(index: 1)
        second.requestStartAt = plain.firstPacketAt + 86
        second.pipelined = true
        second.pipelineDepth = 2
        plain.exchanges = [first, second]

        var tls = TCPConnection(client: Endpoint(address: IPAddress(v6High: 0, low: 1), port: 50000),
                                server: Endpoint(address: IPAddress(v6High: 0x2001_0db8_0000_0000, low: 0x1), port: 443),
                                firstPacketAt: 1_700_000_001_000_000)
        tls.index = 0
        tls.applicationProtocol = "tls"
        var info = TLSInfo()
        info.serverName = "localhost"
        info.offeredALPN = ["h2", "http/1.1"]
        info.version = "TLSv1.3"
        tls.tls = info
        var inferred = HTTPExchange(index: 0)
        inferred.inferred = true
        inferred.requestBodyBytes = 517
        tls.exchanges = [inferred]
        tls.notes = ["began before the capture: no handshake, sequence numbers relative to the first packet"]

        var h2 = TCPConnection(client: Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 1),
                               server: Endpoint(address: IPAddress(v4: 10, 0, 0, 2), port: 8080),
                               firstPacketAt: 1_700_000_002_000_000)
        h2.index = 1
        h2.lastPacketAt = h2.firstPacketAt + 3
        h2.end = .reset
        h2.closedBy = .client
        var summary = HTTP2Summary()
        summary.clientFrames = 9
        summary.serverFrames = 11
        summary.streams = 3
        summary.maxConcurrentStreams = 2
        summary.resetStreams = 1
        h2.http2 = summary
        var stream = HTTPExchange(index: 0)
        stream.stream = 1
        stream.method = "POST"
        stream.statusCode = 201
        stream.requestEndAt = h2.firstPacketAt + 2
        stream.responseStartAt = h2.firstPacketAt + 1  // before the request's end: a negative wait
        h2.exchanges = [stream]

        report.connections = [plain, tls, h2]
        report.firstPacketAt = plain.firstPacketAt
        report.lastPacketAt = h2.lastPacketAt
        report.packets.total = 40
        report.summary = CaptureSummary(of: report.connections)
        report.caveats = [Caveat(id: "no-handshake", text: "1 connection began before the capture")]
        return report
    }

    func testStreamedDocumentIsTheCodableDocument() throws {
        let report = variedReport()
        var expected = try StreamingJSONEncoder(prettyPrinted: false).encode(ReferenceCaptureDocument(report))
        expected.append(UInt8(ascii: "\n"))
        let written = try CaptureJSONRenderer.render(report)
        XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        // Each connection alone, too.
        var writer = CaptureConnectionJSONWriter()
        for connection in report.connections {
            var bytes: [UInt8] = []
            writer.append(connection, to: &bytes)
            XCTAssertEqual(bytes, try StreamingJSONEncoder(prettyPrinted: false).encode(connection))
        }
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        XCTAssertEqual((parsed["connections"] as? [Any])?.count, 3)
        XCTAssertEqual(written.filter { $0 == 10 }.count, 1, "one line")
    }

    func testAnEmptyReportIsComplete() throws {
        let report = CaptureReport(file: "empty.pcap", filter: nil, linkType: .raw, snapshotLength: 65535)
        var expected = try StreamingJSONEncoder(prettyPrinted: false).encode(ReferenceCaptureDocument(report))
        expected.append(UInt8(ascii: "\n"))
        XCTAssertEqual(try CaptureJSONRenderer.render(report), expected)
    }

    /// Over connections generated from a fixed seed (every optional present or absent, odd strings, IPv4 and IPv6,
    /// TLS, HTTP/2, idle gaps, exchanges of every shape, instants across second and year boundaries), the fast
    /// writer's bytes are the Codable encoding's, connection by connection and as a whole document.
    func testGeneratedConnectionsAreWrittenAsTheirCodableEncoding() throws {
        var random = SplitMix64(seed: 0x5EED_CA97)
        var report = CaptureReport(file: "gen.pcap", filter: nil, linkType: .linuxCooked2, snapshotLength: 96)
        var writer = CaptureConnectionJSONWriter()
        let encoder = StreamingJSONEncoder(prettyPrinted: false)
        for index in 0..<400 {
            let connection = Self.connection(index: index, using: &random)
            var bytes: [UInt8] = []
            writer.append(connection, to: &bytes)
            let expected = try encoder.encode(connection)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self),
                           "connection \(index)")
            report.connections.append(connection)
        }
        report.summary = CaptureSummary(of: report.connections)
        var expected = try encoder.encode(ReferenceCaptureDocument(report))
        expected.append(UInt8(ascii: "\n"))
        XCTAssertEqual(try CaptureJSONRenderer.render(report), expected)
    }

    /// Throughputs (`bytesPerSecond`, rounded to tenths) of every magnitude, from fractions of a byte a second to
    /// beyond 1e15 (where the Double's own text is used), are written as their Codable encoding writes them.
    func testThroughputsOfEveryMagnitudeAreTheirCodableText() throws {
        var random = SplitMix64(seed: 0x7E47_5A11)
        var writer = CaptureConnectionJSONWriter()
        let encoder = StreamingJSONEncoder(prettyPrinted: false)
        for index in 0..<3000 {
            let first: Int64 = 1_700_000_000_000_000
            var c = TCPConnection(client: Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 1),
                                  server: Endpoint(address: IPAddress(v4: 10, 0, 0, 2), port: 2), firstPacketAt: first)
            c.index = index
            c.lastPacketAt = first + 1 + Int64(random.next() % (UInt64(1) << (random.next() % 40)))
            c.clientToServer.bytes = Int64(random.next() % (UInt64(1) << (random.next() % 63)))
            c.serverToClient.bytes = Int64(random.next() % 1000)
            var bytes: [UInt8] = []
            writer.append(c, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: try encoder.encode(c), as: UTF8.self),
                           "bytes \(c.clientToServer.bytes) over \(c.duration) µs")
        }
    }

    /// A connection whose every field is drawn from `random`.
    private static func connection(index: Int, using random: inout SplitMix64) -> TCPConnection {
        func address() -> IPAddress {
            random.next() % 3 == 0
                ? IPAddress(v6High: random.next() % 4 == 0 ? 0 : random.next(), low: random.next() % 5)
                : IPAddress(v4: UInt8(truncatingIfNeeded: random.next()), 0, UInt8(random.next() % 3), 1)
        }
        func instant() -> Int64 { 946_684_799_000_000 + Int64(random.next() % 4_000_000_000_000) }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 3 == 0 ? nil : value() }
        func text() -> String {
            let pieces = ["a", "/", "\"", "\\", "é", "\u{01}", "\t", "?q=1&x=/", "😀", " ", "\u{7f}", "\n"]
            return (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        func count() -> Int { Int(random.next() % 3 == 0 ? random.next() % 1_000_000_000 : random.next() % 10) }
        func stats() -> DirectionStats {
            var d = DirectionStats()
            d.packets = count()
            d.bytes = Int64(count())
            d.wireBytes = Int64(count())
            d.retransmissions = count()
            d.outOfOrder = count()
            d.keepAlives = count()
            d.zeroWindow = count()
            d.windowFull = count()
            d.resets = count()
            d.captureGaps = count()
            d.captureGapBytes = Int64(count())
            d.truncatedBytes = Int64(count())
            return d
        }
        let first = instant()
        var c = TCPConnection(client: Endpoint(address: address(), port: UInt16(truncatingIfNeeded: random.next())),
                              server: Endpoint(address: address(), port: UInt16(random.next() % 3 * 40)),
                              firstPacketAt: first)
        c.index = index
        c.lastPacketAt = first + Int64(random.next() % 3 == 0 ? 0 : random.next() % 90_000_000_000)
        c.clientISN = maybe(UInt32(truncatingIfNeeded: random.next()))
        c.serverISN = maybe(UInt32(truncatingIfNeeded: random.next()))
        c.synAt = maybe(first)
        c.synAckAt = maybe(first + Int64(random.next() % 2_000_000))
        c.handshakeAckAt = maybe(first + Int64(random.next() % 3_000_000))
        c.clientToServer = stats()
        c.serverToClient = stats()
        c.end = [.closed, .reset, .halfClosed, .open][Int(random.next() % 4)]
        c.closedBy = maybe(random.next() % 2 == 0 ? .client : .server)
        c.closeStartedAt = maybe(c.lastPacketAt - Int64(random.next() % 1000))
        c.longestSilence = Int64(random.next() % 5_000_000)
        c.idleGaps = (0..<Int(random.next() % 3)).map { _ in
            .init(startAt: instant(), duration: Int64(random.next() % 9_000_000))
        }
        c.idleGapCount = c.idleGaps.count + Int(random.next() % 2)
        c.applicationProtocol = maybe(["http/1.1", "tls", "h2c", "other"][Int(random.next() % 4)])
        if random.next() % 4 == 0 {
            var tls = TLSInfo()
            tls.serverName = maybe(text())
            tls.offeredALPN = (0..<Int(random.next() % 3)).map { _ in text() }
            tls.version = maybe("TLSv1.3")
            tls.chosenALPN = maybe(text())
            c.tls = tls
        }
        if random.next() % 4 == 0 {
            var h2 = HTTP2Summary()
            h2.clientFrames = count()
            h2.serverFrames = count()
            h2.streams = count()
            h2.maxConcurrentStreams = count()
            h2.resetStreams = count()
            c.http2 = h2
        }
        c.notes = (0..<Int(random.next() % 3)).map { _ in text() }
        c.exchanges = (0..<Int(random.next() % 5)).map { i in
            var e = HTTPExchange(index: i)
            e.method = maybe(["GET", "HEAD", "POST"][Int(random.next() % 3)])
            e.target = maybe(text())
            e.httpVersion = maybe("HTTP/1.1")
            e.statusCode = maybe(Int(random.next() % 600))
            e.interimStatuses = (0..<Int(random.next() % 2)).map { _ in 100 + Int(random.next() % 4) }
            e.interimAt = maybe(instant())
            e.requestStartAt = maybe(instant())
            e.requestEndAt = maybe(instant())
            e.responseStartAt = maybe(instant())
            e.responseEndAt = maybe(instant())
            e.requestHeaderBytes = count()
            e.requestBodyBytes = Int64(count())
            e.responseHeaderBytes = count()
            e.responseBodyBytes = Int64(count())
            e.pipelined = random.next() % 2 == 0
            e.pipelineDepth = 1 + Int(random.next() % 4)
            e.stream = maybe(Int(random.next() % 100))
            e.inferred = random.next() % 5 == 0
            e.cutShort = random.next() % 5 == 0
            return e
        }
        return c
    }
}
