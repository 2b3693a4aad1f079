import Foundation
import WirelensCore
import WirelensReport
import XCTest
@testable import WirelensCapture

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
        var expected = try StreamingJSONEncoder(prettyPrinted: false).encode(report)
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
        var expected = try StreamingJSONEncoder(prettyPrinted: false).encode(report)
        expected.append(UInt8(ascii: "\n"))
        XCTAssertEqual(try CaptureJSONRenderer.render(report), expected)
    }
}
