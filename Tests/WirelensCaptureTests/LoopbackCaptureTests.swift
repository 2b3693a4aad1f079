import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensCapture

/// Captures made by the tests themselves with tcpdump on loopback against nginx, analysed by Wirelens and
/// checked against tshark's reading of the same file.
final class LoopbackCaptureTests: XCTestCase {
    private var servers: TestServers!
    private var toRemove: [String] = []

    override func setUpWithError() throws {
        servers = try TestServers.get()
    }

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    private func record(interface: String = "lo", options: [String] = [], port: Int? = nil,
                        during body: () throws -> Void) throws -> String {
        let path = try LoopbackCapture.record(interface: interface, filter: "tcp port \(port ?? servers.httpPort)",
                                              options: options, during: body)
        toRemove.append(path)
        return path
    }

    private func analyze(_ path: String, filter: String? = nil) throws -> CaptureReport {
        let outcome = try CaptureAnalyzer.analyze(path: path, filter: filter)
        XCTAssertNil(outcome.readError)
        return outcome.report
    }

    /// Compares connections and requests per connection with tshark's reading of the same file.
    private func assertAgreesWithTshark(_ report: CaptureReport, _ path: String,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let conversations = try TsharkOracle.conversations(path)
        XCTAssertEqual(report.connections.count, conversations.count, "connections vs tshark conv,tcp", file: file, line: line)
        XCTAssertEqual(report.connections.count, try TsharkOracle.streamCount(path), "connections vs tcp.stream",
                       file: file, line: line)
        let ours = report.connections.map {
            TsharkOracle.Conversation(ports: [Int($0.client.port), Int($0.server.port)],
                                      frames: $0.clientToServer.packets + $0.serverToClient.packets)
        }
        XCTAssertEqual(ours.sorted { $0.hashValue < $1.hashValue }, conversations.sorted { $0.hashValue < $1.hashValue },
                       "packets per connection vs tshark", file: file, line: line)
        // Requests per connection, matched by the stream's client port and order.
        let requests = try TsharkOracle.requestsPerStream(path)
        let clients = try TsharkOracle.clientPorts(path)
        let theirs = clients.keys.sorted().map { "\(clients[$0]!): " + (requests[$0] ?? []).joined(separator: ", ") }
        let mine = report.connections.map { c in
            "\(c.client.port): " + c.exchanges.map { "\($0.method ?? "?") \($0.target ?? "?")" }.joined(separator: ", ")
        }
        XCTAssertEqual(mine, theirs, "requests per connection vs tshark", file: file, line: line)
    }

    func testKeepAliveIsOneConnectionWithNRequests() throws {
        let paths = ["/small.txt", "/bytes/1k.bin", "/status/404", "/small.txt", "/bytes/1k.bin"]
        let path = try record {
            try LoopbackCapture.curl(paths.flatMap { [servers.http($0), "-o", "/dev/null"] })
        }
        let report = try analyze(path)
        XCTAssertEqual(report.linkType, .ethernet)
        XCTAssertEqual(report.connections.count, 1)
        let c = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(c.exchanges.map { $0.target ?? "" }, paths)
        XCTAssertEqual(c.exchanges.map { $0.statusCode ?? 0 }, [200, 200, 404, 200, 200])
        XCTAssertEqual(c.exchanges.map(\.responseBodyBytes)[0...1], [14, 1024])
        XCTAssertTrue(c.exchanges.allSatisfy { $0.complete && !$0.pipelined })
        XCTAssertTrue(c.handshakeSeen)
        XCTAssertNotNil(c.handshakeTime)
        XCTAssertEqual(c.end, .closed)
        XCTAssertEqual(c.applicationProtocol, "http/1.1")
        XCTAssertEqual(c.server.port, UInt16(servers.httpPort))
        XCTAssertEqual(c.clientToServer.retransmissions + c.serverToClient.retransmissions, 0)
        XCTAssertEqual(c.clientToServer.captureGaps + c.serverToClient.captureGaps, 0)
        // Exchanges follow each other: each request starts after the previous response ended.
        for (a, b) in zip(c.exchanges, c.exchanges.dropFirst()) {
            XCTAssertLessThanOrEqual(try XCTUnwrap(a.responseEndAt), try XCTUnwrap(b.requestStartAt))
        }
        try assertAgreesWithTshark(report, path)
    }

    func testConnectionCloseGivesOneConnectionPerRequest() throws {
        let path = try record {
            try LoopbackCapture.curl(["-H", "Connection: close"] + (0..<3).flatMap { [servers.http("/small.txt?n=\($0)"), "-o", "/dev/null"] })
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.count, 3)
        XCTAssertTrue(report.connections.allSatisfy { $0.exchanges.count == 1 && $0.exchanges[0].complete })
        XCTAssertTrue(report.connections.allSatisfy { $0.closedBy == .server && $0.end == .closed })
        XCTAssertEqual(report.summary.maxExchangesPerConnection, 1)
        XCTAssertEqual(report.summary.maxConcurrentConnections, 1)
        try assertAgreesWithTshark(report, path)
    }

    /// Client ports that other protocols registered (MySQL's 3306, SIP's 5060) carry HTTP like any other: the
    /// analysis reads it by its bytes, and tshark, whose own choice goes by the lower port, agrees once told which
    /// port is the server's (a CI run's stream from such a port showed tshark no request at all).
    func testClientPortsOtherProtocolsRegisteredStillCarryHTTP() throws {
        let path = try record {
            for port in [3306, 5060] {
                // The server closes, so the client's port is free again at once (no TIME_WAIT on its side).
                try LoopbackCapture.curl(["--local-port", "\(port)", "-H", "Connection: close",
                                          servers.http("/small.txt?from=\(port)"), "-o", "/dev/null"])
            }
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.map { Int($0.client.port) }, [3306, 5060])
        XCTAssertEqual(report.connections.map { $0.exchanges.map { $0.target ?? "" } },
                       [["/small.txt?from=3306"], ["/small.txt?from=5060"]])
        try assertAgreesWithTshark(report, path)
    }

    func testParallelOpensNConnections() throws {
        let n = 4
        let path = try record {
            try LoopbackCapture.curl(["--parallel", "--parallel-immediate", "--parallel-max", "\(n)"]
                + (0..<n).flatMap { [servers.http("/bytes/1k.bin?p=\($0)"), "-o", "/dev/null"] })
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.count, n)
        XCTAssertEqual(report.summary.exchanges, n)
        XCTAssertEqual(report.summary.maxConcurrentConnections, n)
        XCTAssertEqual(report.summary.servers.first?.maxConcurrent, n)
        try assertAgreesWithTshark(report, path)
    }

    func testPipelinedRequestsInOneSegmentPairWithTheirOwnResponses() throws {
        let n = 8
        let script = """
        import socket, sys
        port, n = int(sys.argv[1]), int(sys.argv[2])
        reqs = b"".join(b"GET /small.txt?i=%d HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n%s\\r\\n" % (i, b"Connection: close\\r\\n" if i == n - 1 else b"") for i in range(n))
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(reqs)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            data += chunk
        s.close()
        assert data.count(b"HTTP/1.1 200") == n, data[:200]
        """
        let path = try record { try LoopbackCapture.python(script, ["\(servers.httpPort)", "\(n)"]) }
        let report = try analyze(path)
        let c = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(report.connections.count, 1)
        XCTAssertEqual(c.exchanges.count, n)
        XCTAssertEqual(c.exchanges.map(\.target), (0..<n).map { "/small.txt?i=\($0)" })
        XCTAssertTrue(c.exchanges.allSatisfy { $0.statusCode == 200 && $0.complete && $0.responseBodyBytes == 14 })
        XCTAssertEqual(c.exchanges.map(\.pipelineDepth), Array(1...n))
        XCTAssertEqual(report.summary.pipelinedRequests, n - 1)
        // All requests left in one segment: they share their first byte's time.
        XCTAssertEqual(Set(c.exchanges.map(\.requestStartAt)).count, 1)
        try assertAgreesWithTshark(report, path)
    }

    func testAnyInterfaceWritesLinuxCookedV2AndV1() throws {
        for (options, expected) in [([String](), LinkType.linuxCooked2), (["-y", "LINUX_SLL"], .linuxCooked)] {
            let path = try record(interface: "any", options: options) {
                try LoopbackCapture.curl([servers.http("/small.txt"), "-o", "/dev/null", servers.http("/bytes/1k.bin"),
                                          "-o", "/dev/null"])
            }
            let report = try analyze(path)
            XCTAssertEqual(report.linkType, expected)
            XCTAssertEqual(report.connections.count, 1)
            XCTAssertEqual(report.connections.first?.exchanges.count, 2)
            try assertAgreesWithTshark(report, path)
        }
    }

    func testPcapngAndNanosecondFilesReadLikePcap() throws {
        let path = try record(options: ["--nano"]) {
            try LoopbackCapture.curl([servers.http("/small.txt"), "-o", "/dev/null", servers.http("/status/204"),
                                      "-o", "/dev/null"])
        }
        let ng = LoopbackCapture.temporaryPath("capture.pcapng")
        toRemove.append(ng)
        let converted = try ProcessRunner.run("/usr/bin/editcap", ["-F", "pcapng", path, ng], timeout: 30)
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let plain = try analyze(path)
        let fromNG = try analyze(ng)
        XCTAssertEqual(plain.connections, fromNG.connections)
        XCTAssertEqual(plain.packets, fromNG.packets)
        XCTAssertEqual(fromNG.connections.first?.exchanges.map(\.statusCode), [200, 204])
        try assertAgreesWithTshark(fromNG, ng)
    }

    func testSnapshotLength96KeepsTCPFiguresAndSaysWhatItMissed() throws {
        // Two captures of the same traffic at once: full packets, and cut at 96 bytes.
        var cut = ""
        let full = try record {
            cut = try record(options: ["-s", "96"]) {
                try LoopbackCapture.curl([servers.http("/bytes/1k.bin"), "-o", "/dev/null", servers.http("/small.txt"),
                                          "-o", "/dev/null"])
            }
        }
        let whole = try analyze(full)
        let short = try analyze(cut)
        XCTAssertEqual(short.snapshotLength, 96)
        XCTAssertGreaterThan(short.packets.cutBySnapshot, 0)
        XCTAssertTrue(short.caveats.contains { $0.id == "snapshot-length" })
        XCTAssertEqual(short.connections.count, whole.connections.count)
        for (a, b) in zip(short.connections, whole.connections) {
            XCTAssertEqual(a.clientToServer.packets, b.clientToServer.packets)
            XCTAssertEqual(a.serverToClient.packets, b.serverToClient.packets)
            XCTAssertEqual(a.clientToServer.bytes, b.clientToServer.bytes)
            XCTAssertEqual(a.serverToClient.bytes, b.serverToClient.bytes)
            XCTAssertEqual(a.clientISN, b.clientISN)
            XCTAssertEqual(a.serverToClient.retransmissions, 0)
            XCTAssertEqual(a.clientToServer.captureGaps + a.serverToClient.captureGaps, 0, "a cut is not a gap")
            XCTAssertGreaterThan(a.clientToServer.truncatedBytes + a.serverToClient.truncatedBytes, 0)
        }
        XCTAssertEqual(whole.summary.exchanges, 2)
        XCTAssertTrue(try XCTUnwrap(short.connections.first).notes.contains { $0.contains("snapshot length") })
    }

    func testBPFFilterSelectsPackets() throws {
        let path = try record {
            try LoopbackCapture.curl([servers.http("/small.txt"), "-o", "/dev/null"])
        }
        let all = try analyze(path)
        let synOnly = try analyze(path, filter: "tcp[tcpflags] & tcp-syn != 0")
        XCTAssertEqual(synOnly.packets.total, 2)
        XCTAssertGreaterThan(all.packets.total, synOnly.packets.total)
        XCTAssertThrowsError(try CaptureAnalyzer.analyze(path: path, filter: "tcp port banana")) { error in
            guard case .badFilter = error as? CaptureError else { return XCTFail("\(error)") }
        }
    }

    func testHTTPSShowsTheHellosAndInfersExchangesFromRecords() throws {
        let path = try record(port: servers.httpsPort) {
            try LoopbackCapture.curl(["-k", "--http1.1", servers.https("/small.txt"), "-o", "/dev/null",
                                      servers.https("/bytes/1k.bin"), "-o", "/dev/null"])
            try LoopbackCapture.curl(["-k", "--http2", servers.https("/small.txt"), "-o", "/dev/null"])
            try LoopbackCapture.curl(["-k", "--tls-max", "1.2", "--http1.1", servers.https("/small.txt"), "-o", "/dev/null"])
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.count, 3)
        XCTAssertTrue(report.connections.allSatisfy { $0.applicationProtocol == "tls" })
        // tshark's reading of the ClientHellos: stream, SNI, offered ALPN.
        let out = try ProcessRunner.run("/usr/bin/tshark", ["-r", path, "-Y", "tls.handshake.type==1", "-T", "fields",
                                                            "-E", "separator=|", "-e", "tls.handshake.extensions_server_name",
                                                            "-e", "tls.handshake.extensions_alpn_str"], timeout: 60)
        let theirs = out.stdout.split(separator: "\n").map(String.init)
        let mine = report.connections.map { "\($0.tls?.serverName ?? "")|\($0.tls?.offeredALPN.joined(separator: ",") ?? "")" }
        XCTAssertEqual(mine, theirs)
        XCTAssertEqual(report.connections.map { $0.tls?.version }, ["TLSv1.3", "TLSv1.3", "TLSv1.2"])
        XCTAssertEqual(report.connections[2].tls?.chosenALPN, "http/1.1", "TLS 1.2 shows the chosen protocol")
        XCTAssertNil(report.connections[0].tls?.chosenALPN, "TLS 1.3 encrypts it")
        // Two requests on the keep-alive connection: two inferred exchanges, the larger response second.
        let keepAlive = report.connections[0].exchanges
        XCTAssertEqual(keepAlive.count, 2)
        XCTAssertTrue(keepAlive.allSatisfy { $0.inferred && $0.complete && $0.method == nil })
        XCTAssertGreaterThan(keepAlive[1].responseBodyBytes, 1024)
        XCTAssertLessThan(keepAlive[0].responseBodyBytes, keepAlive[1].responseBodyBytes)
        XCTAssertEqual(report.connections[2].exchanges.count, 1)
    }

    func testH2CStreamsAreExchangesWithTheirConcurrency() throws {
        let paths = ["/slow/1m.bin", "/bytes/1k.bin", "/status/404", "/small.txt"]
        let path = try record(port: servers.h2cPort) {
            // nghttp multiplexes all its URIs on one prior-knowledge connection (curl 7.88 fails at that).
            let run = try ProcessRunner.run("/usr/bin/nghttp", ["-n"] + paths.map { servers.h2c($0) }, timeout: 30)
            guard run.status == 0 else { throw LoopbackCapture.Failure(description: "nghttp failed: \(run.stderr)") }
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.count, 1)
        let c = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(c.applicationProtocol, "h2c")
        XCTAssertEqual(c.http2?.streams, 4)
        XCTAssertEqual(c.http2?.maxConcurrentStreams, 4, "the slow stream is open while the others run")
        XCTAssertTrue(c.exchanges.allSatisfy { $0.complete && $0.httpVersion == "HTTP/2" && $0.stream != nil })
        XCTAssertEqual(c.exchanges.first { $0.target == "/slow/1m.bin" }?.responseBodyBytes, 1 << 20)
        // tshark's reading of the same frames, decoded as HTTP/2 on the server's port.
        func fields(_ filter: String, _ field: String) throws -> [String] {
            let out = try ProcessRunner.run("/usr/bin/tshark", ["-r", path, "-d", "tcp.port==\(servers.h2cPort),http2",
                                                                "-Y", filter, "-T", "fields", "-e", field], timeout: 60)
            return out.stdout.split(separator: "\n").flatMap { $0.split(separator: ",").map(String.init) }
        }
        XCTAssertEqual(c.exchanges.compactMap(\.target).sorted(), try fields("http2.headers.path", "http2.headers.path").sorted())
        XCTAssertEqual(c.exchanges.compactMap { $0.statusCode.map(String.init) }.sorted(),
                       try fields("http2.headers.status", "http2.headers.status").sorted())
    }

    /// curl's `--http2` on http:// asks to upgrade (Upgrade: h2c); after the 101 the connection speaks HTTP/2
    /// and the upgraded request is stream 1. The peer (scripts/slowpeer.py) stands in for a server: nginx and
    /// nghttpd accept h2c only with prior knowledge.
    func testH2CUpgradeFollowsTheConnectionIntoHTTP2() throws {
        let size = 40_000
        let path = try record(port: servers.peerPort) {
            try LoopbackCapture.curl(["--http2", servers.peer("/h2c-upgrade/\(size)"), "-o", "/dev/null"])
        }
        let report = try analyze(path)
        XCTAssertEqual(report.connections.count, 1)
        let c = try XCTUnwrap(report.connections.first)
        XCTAssertEqual(c.applicationProtocol, "h2c")
        XCTAssertEqual(c.http2?.streams, 1)
        let exchange = try XCTUnwrap(c.exchanges.first)
        XCTAssertEqual(c.exchanges.count, 1, "the upgraded request is one exchange: stream 1")
        XCTAssertEqual(exchange.stream, 1)
        XCTAssertEqual(exchange.method, "GET")
        XCTAssertEqual(exchange.target, "/h2c-upgrade/\(size)")
        XCTAssertEqual(exchange.statusCode, 200)
        XCTAssertEqual(exchange.responseBodyBytes, Int64(size))
        XCTAssertTrue(exchange.complete)
        // tshark follows the same upgrade: one 101 in HTTP/1.1, then a 200 in HTTP/2 headers.
        func fields(_ filter: String, _ field: String) throws -> [String] {
            let out = try ProcessRunner.run("/usr/bin/tshark", ["-r", path, "-d", "tcp.port==\(servers.peerPort),http",
                                                                "-Y", filter, "-T", "fields", "-e", field], timeout: 60)
            return out.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try fields("http.response.code == 101", "http.response.code"), ["101"])
        XCTAssertEqual(try fields("http2.headers.status", "http2.headers.status"), ["200"])
    }
}
