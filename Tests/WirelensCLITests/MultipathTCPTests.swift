import Foundation
import WirelensTestSupport
import XCTest

/// `--mptcp` over two real paths (scripts/netpath.sh `--second-path`): a client and a server namespace joined by the
/// router's link (20 Mbit/s) and a straight second link (10 Mbit/s), the server announcing its second address
/// (`ip mptcp endpoint … signal`) and listening with MPTCP (scripts/mptcp-server.py). Each subflow Wirelens reports is
/// checked against a tcpdump capture on its path's interface; the fallback against the kernel's own MPTCP counter.
/// Needs root (CI runs as root): without it each test fails with the reason.
final class MultipathTCPTests: XCTestCase {
    private static let port = 8080
    private static let size = 8_000_000
    /// The faster path's payload rate: tbf counts 1514 bytes for each 1448-byte segment (NetworkVerdictTests).
    private static let fasterPayloadRate = 20_000_000.0 / 8 * 1448 / 1514

    /// One path's connection, by 4-tuple.
    private struct Flow: Hashable {
        var client: String
        var clientPort: Int
        var server: String
        var serverPort: Int
    }

    /// What a capture saw of a connection: the payload bytes the client sent, and the highest byte the server sent
    /// (the relative sequence number past its last segment with data, less the SYN's one): what the client
    /// received, each byte once.
    private struct Captured {
        var sent = 0
        var received = 0
        /// Packets either way that carried an MPTCP option (TCP option kind 30).
        var multipathPackets = 0
        /// When the server's first segment with data came (the capture's clock, seconds since the epoch).
        var firstData: Double?
    }

    /// The two paths (the router's at `rate`, the straight one at `secondRate`) with MPTCP set up on both sides and
    /// the server listening, its second address signalled (as a `backup` endpoint when `backup`: Apple's handover
    /// mode, the path used only once the other fails); the caller takes them down.
    private func twoPaths(rate: String = "20mbit", secondRate: String = "10mbit", backup: Bool = false) throws
        -> (NetworkPath, ServerProcess) {
        let path = try NetworkPath.up(rate: rate, queue: "50ms", secondPath: secondRate)
        let second = try XCTUnwrap(path.secondServerIP)
        for namespace in [path.clientNamespace, path.serverNamespace] {
            try ip(path, namespace, ["mptcp", "limits", "set", "subflows", "2", "add_addr_accepted", "2"])
        }
        try ip(path, path.serverNamespace, ["mptcp", "endpoint", "add", second, "dev", "s1", "signal"]
               + (backup ? ["backup"] : []))
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/mptcp-server.py").path
        let server = try path.process(in: path.serverNamespace, "/usr/bin/python3", [script, String(Self.port)])
        guard server.waitForText(after: "ready", seconds: 10) != nil else {
            server.kill()
            throw LoopbackCapture.Failure(description: "the MPTCP server did not start: \(server.stderr)")
        }
        return (path, server)
    }

    private func ip(_ path: NetworkPath, _ namespace: String, _ arguments: [String]) throws {
        let outcome = try path.run(in: namespace, "/usr/sbin/ip", arguments, timeout: 10)
        XCTAssertEqual(outcome.status, 0, "ip \(arguments.joined(separator: " ")): \(outcome.stderr)")
    }

    /// Probes `arguments` in the client namespace while tcpdump records both client interfaces; the transaction and
    /// what each capture saw, by 4-tuple.
    private func probeCaptured(_ path: NetworkPath, _ arguments: [String], size: Int = size) throws
        -> (tx: [String: Any], c0: [Flow: Captured], c1: [Flow: Captured]) {
        var tx: [String: Any] = [:]
        var second = ""
        let filter = "tcp port \(Self.port)"
        let first = try LoopbackCapture.record(interface: "c0", filter: filter, options: ["-s", "96"],
                                               namespace: path.clientNamespace) {
            second = try LoopbackCapture.record(interface: "c1", filter: filter, options: ["-s", "96"],
                                                namespace: path.clientNamespace) {
                tx = try CLIHarness.probe(in: path, arguments + ["http://\(path.serverIP):\(Self.port)/bytes/\(size)"])
            }
        }
        defer { unlink(first); unlink(second) }
        return (tx, try flows(first, client: [path.clientIP, path.secondClientIP ?? ""]),
                try flows(second, client: [path.clientIP, path.secondClientIP ?? ""]))
    }

    /// tshark's reading of a capture: per 4-tuple, the client's payload bytes and the server's highest byte.
    private func flows(_ pcap: String, client: [String]) throws -> [Flow: Captured] {
        let run = try ProcessRunner.run("/usr/bin/tshark", ["-r", pcap, "-o", "tcp.relative_sequence_numbers:TRUE",
                                                            "-T", "fields", "-E", "separator=|", "-e", "ip.src",
                                                            "-e", "tcp.srcport", "-e", "ip.dst", "-e", "tcp.dstport",
                                                            "-e", "tcp.seq", "-e", "tcp.len", "-e", "tcp.option_kind",
                                                            "-e", "frame.time_epoch"],
                                         timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        var result: [Flow: Captured] = [:]
        for line in run.stdout.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 8, let sport = Int(f[1]), let dport = Int(f[3]), let seq = Int(f[4]), let len = Int(f[5])
            else { continue }
            let fromClient = client.contains(f[0])
            let flow = fromClient ? Flow(client: f[0], clientPort: sport, server: f[2], serverPort: dport)
                : Flow(client: f[2], clientPort: dport, server: f[0], serverPort: sport)
            var seen = result[flow] ?? Captured()
            if f[6].split(separator: ",").contains("30") { seen.multipathPackets += 1 }
            if fromClient {
                seen.sent += len
            } else if len > 0 {
                // A bare ACK after the FIN sits one past the last byte: only segments with data count.
                seen.received = max(seen.received, seq + len - 1)
                if seen.firstData == nil { seen.firstData = Double(f[7]) }
            }
            result[flow] = seen
        }
        return result
    }

    /// Two subflows, one on each path: each one's 4-tuple is the connection its path's capture saw, its bytes
    /// received the highest byte the server sent on it (one more when the FIN arrived: the kernel counts it) and its
    /// bytes sent the client's payload there; the body took both, faster than the faster path alone carries.
    func testADownloadOverTwoPathsReportsBothSubflowsAsTheCapturesSawThem() throws {
        let (path, server) = try twoPaths()
        defer { server.kill(); path.down() }
        let (tx, c0, c1) = try probeCaptured(path, ["--mptcp"])
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        let mptcp = try XCTUnwrap(tx["mptcp"] as? [String: Any], "no mptcp member: \(tx)")
        XCTAssertEqual(mptcp["negotiated"] as? Bool, true)
        let subflows = try XCTUnwrap(mptcp["subflows"] as? [[String: Any]])
        XCTAssertEqual(subflows.count, 2, "\(subflows)")
        XCTAssertEqual(c0.count, 1, "one connection on the router's path: \(c0)")
        XCTAssertEqual(c1.count, 1, "one connection on the second path: \(c1)")
        let captured = c0.merging(c1) { a, _ in a }
        var shares = 0.0
        for subflow in subflows {
            let flow = Flow(client: try XCTUnwrap(subflow["localAddress"] as? String),
                            clientPort: try XCTUnwrap(subflow["localPort"] as? Int),
                            server: try XCTUnwrap(subflow["remoteAddress"] as? String),
                            serverPort: try XCTUnwrap(subflow["remotePort"] as? Int))
            let seen = try XCTUnwrap(captured[flow], "subflow \(flow) is in no capture: \(captured.keys)")
            XCTAssertGreaterThan(seen.multipathPackets, 0, "\(flow) carried MPTCP options on the wire")
            let received = try XCTUnwrap(subflow["bytesReceived"] as? Int)
            XCTAssertTrue((seen.received...(seen.received + 1)).contains(received),
                          "\(flow): \(received) received, the capture \(seen.received)")
            let sent = try XCTUnwrap(subflow["bytesSent"] as? Int)
            XCTAssertEqual(sent, seen.sent, "\(flow): bytes sent against the capture's payload")
            let share = try XCTUnwrap(subflow["bodyShare"] as? Double)
            XCTAssertGreaterThan(share, 0.1, "\(flow) carried part of the body")
            shares += share
            XCTAssertGreaterThan(try XCTUnwrap(subflow["rtt"] as? Int), 0)
            if flow.client == path.secondClientIP {
                // The slower path's tbf held its subflow back (its overlimits counter: packets it made wait).
                XCTAssertEqual(subflow["verdict"] as? String, "network", "\(subflow)")
                XCTAssertGreaterThan(try secondPathQdisc(path).overlimits, 0, "the second path's tbf throttled")
            }
        }
        XCTAssertEqual(shares, 1, accuracy: 1e-9)
        XCTAssertEqual(Set(subflows.compactMap { $0["localAddress"] as? String }),
                       [path.clientIP, try XCTUnwrap(path.secondClientIP)])
        let rate = try XCTUnwrap(tx["downloadBytesPerSecond"] as? Double)
        XCTAssertGreaterThan(rate, Self.fasterPayloadRate * 1.1,
                             "both paths carried the body: more than the 20 Mbit/s path's \(Self.fasterPayloadRate) B/s")
    }

    /// The same download without `--mptcp`: a plain TCP socket, no `mptcp` member, and only the router's path carried
    /// it (the second path's capture is empty), no faster than that path.
    func testWithoutTheFlagTheDownloadTakesOnePathAndReportsNoMPTCP() throws {
        let (path, server) = try twoPaths()
        defer { server.kill(); path.down() }
        let (tx, c0, c1) = try probeCaptured(path, [])
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        XCTAssertNil(tx["mptcp"], "a plain TCP socket has no mptcp member")
        XCTAssertEqual(c0.count, 1, "\(c0)")
        XCTAssertEqual(c1.count, 0, "nothing on the second path: \(c1)")
        XCTAssertEqual(c0.values.first?.multipathPackets, 0, "no MPTCP option on the wire")
        let rate = try XCTUnwrap(tx["downloadBytesPerSecond"] as? Double)
        XCTAssertLessThanOrEqual(rate, Self.fasterPayloadRate * 1.05)
    }

    /// Handover (Apple's `.handover`): the second path is a `backup` endpoint, and the router's path is taken down
    /// (`ip link set rc down` in the router, the client's c0 then without carrier) 1.5 s into a download that takes
    /// about 6 s over one 4 Mbit/s path. The download completes whole (its size, and the server's own count of the
    /// bytes it wrote), the captures on both paths together carry the whole body, and the report's subflow on the
    /// backup path has the bytes its path's capture saw, most of the body, the router's path the first part.
    func testABackupPathCarriesTheRestOfADownloadWhenThePrimaryPathGoesDown() throws {
        let (path, server) = try twoPaths(rate: "4mbit", secondRate: "4mbit", backup: true)
        defer { server.kill(); path.down() }
        let size = 3_000_000
        // A child of its own takes the link down while the probe runs; the captures start within milliseconds.
        let cut = try ServerProcess("/bin/sh", ["-c", "sleep 1.5 && /usr/sbin/ip -n \(path.name)-r link set rc down && date +%s.%N"])
        defer { cut.kill() }
        let (tx, c0, c1) = try probeCaptured(path, ["--mptcp"], size: size)
        XCTAssertEqual(cut.waitForExit(seconds: 5), 0, "ip link set rc down: \(cut.stderr)")
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, size, "the download completed whole")
        XCTAssertNotNil(server.waitForText(after: "sent \(size)", seconds: 5), "the server wrote the whole body: \(server.stdout)")
        XCTAssertEqual(c0.count, 1, "\(c0)")
        XCTAssertEqual(c1.count, 1, "\(c1)")
        let first = try XCTUnwrap(c0.values.first), backup = try XCTUnwrap(c1.values.first)
        XCTAssertGreaterThan(first.received, size / 10, "the router's path carried the start")
        XCTAssertLessThan(first.received, size * 9 / 10, "the router's path went down before the end")
        XCTAssertGreaterThanOrEqual(first.received + backup.received, size, "the two paths carried the whole body")
        let cutAt = try XCTUnwrap(Double(cut.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), cut.stdout)
        let backupFrom = try XCTUnwrap(backup.firstData, "no data on the backup path")
        XCTAssertGreaterThan(backupFrom, cutAt, "the backup path carried no data while the router's path was up")
        let mptcp = try XCTUnwrap(tx["mptcp"] as? [String: Any], "no mptcp member: \(tx)")
        XCTAssertEqual(mptcp["negotiated"] as? Bool, true)
        let subflows = try XCTUnwrap(mptcp["subflows"] as? [[String: Any]])
        let second = try XCTUnwrap(subflows.first { $0["localAddress"] as? String == path.secondClientIP },
                                   "no subflow on the backup path: \(subflows)")
        let received = try XCTUnwrap(second["bytesReceived"] as? Int)
        XCTAssertTrue((backup.received...(backup.received + 1)).contains(received),
                      "backup subflow: \(received) received, its path's capture \(backup.received)")
        XCTAssertGreaterThan(try XCTUnwrap(second["bodyShare"] as? Double), Double(size - first.received) / Double(size) * 0.9,
                             "the backup subflow carried the rest of the body")
    }

    /// `compare --modes h1,mptcp` over the two paths: the mptcp mode (h1 with `--mptcp`) moves more than h1, which the
    /// faster path alone bounds; the second path's tbf (s1, the server's egress) sent a fifth or more of a download
    /// (only the mptcp run used it), and the router's downlink tbf carried at least one whole one (the h1 run's).
    func testCompareTheMPTCPModeAgainstH1OverTwoPaths() throws {
        let (path, server) = try twoPaths()
        defer { server.kill(); path.down() }
        let report = CLIHarness.temporaryPath("compare-mptcp.json")
        defer { unlink(report) }
        let outcome = try path.run(in: path.clientNamespace, CLIHarness.binary,
                                   ["compare", "http://\(path.serverIP):\(Self.port)/bytes/{size}", "--modes", "h1,mptcp",
                                    "--limits", "1", "--workload", "download:\(Self.size)x1", "--repeat", "1",
                                    "--format", "json", "--report", report, "-q"], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                        as? [String: Any])
        XCTAssertEqual(document["modes"] as? [String], ["h1", "mptcp"])
        for run in try XCTUnwrap(document["runs"] as? [[String: Any]]) {
            let tasks = try XCTUnwrap((run["report"] as? [String: Any])?["tasks"] as? [[String: Any]])
            let tx = try XCTUnwrap((tasks.first?["transactions"] as? [[String: Any]])?.first)
            let negotiated = (tx["mptcp"] as? [String: Any])?["negotiated"] as? Bool
            XCTAssertEqual(negotiated, run["mode"] as? String == "mptcp" ? true : nil, "\(run["mode"] ?? "")")
        }
        var rates: [String: Double] = [:]
        for result in try XCTUnwrap(document["results"] as? [[String: Any]]) {
            XCTAssertEqual(result["errors"] as? Int, 0, "\(result)")
            rates[try XCTUnwrap(result["mode"] as? String)] = try XCTUnwrap(result["throughput"] as? Double)
        }
        let h1 = try XCTUnwrap(rates["h1"]), multipath = try XCTUnwrap(rates["mptcp"])
        XCTAssertLessThanOrEqual(h1, Self.fasterPayloadRate * 1.05, "h1 takes the router's path only")
        XCTAssertGreaterThan(multipath, h1 * 1.1, "mptcp \(multipath) B/s against h1 \(h1) B/s")
        let sent = try secondPathQdisc(path).sent
        XCTAssertGreaterThan(sent, Self.size / 5, "the second path carried part of the mptcp run's download")
        XCTAssertLessThan(sent, Self.size * 3 / 2, "and not the h1 run's as well")
        XCTAssertGreaterThanOrEqual(try path.counters().downSentBytes, Self.size, "the router's path carried h1's")
    }

    /// The second path's tbf on the server's side (s1, toward the client): the bytes it sent and its overlimits (the
    /// packets it made wait for tokens), from `tc -s qdisc show`.
    private func secondPathQdisc(_ path: NetworkPath) throws -> (sent: Int, overlimits: Int) {
        let tc = try path.run(in: path.serverNamespace, "/usr/sbin/tc", ["-s", "qdisc", "show", "dev", "s1"], timeout: 10)
        XCTAssertEqual(tc.status, 0, tc.stderr)
        let words = try XCTUnwrap(tc.stdout.split(separator: "\n").first { $0.contains("Sent ") },
                                  "no Sent line in tc -s qdisc show dev s1: \(tc.stdout)")
            .split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",()")) }
        func after(_ word: String) throws -> Int {
            try XCTUnwrap(words.firstIndex(of: word).flatMap { $0 + 1 < words.count ? Int(words[$0 + 1]) : nil },
                          "no \(word) in \(words)")
        }
        return (try after("Sent"), try after("overlimits"))
    }

    /// `--mptcp` on a client whose kernel refuses MPTCP sockets (`net.mptcp.enabled=0` in its namespace: socket()
    /// fails with ENOPROTOOPT): the socket is plain TCP, so the download goes whole over one path, no packet carries
    /// an MPTCP option, and the transaction has no `mptcp` member.
    func testWhereTheKernelRefusesMPTCPSocketsTheSocketIsPlainTCP() throws {
        let (path, server) = try twoPaths()
        defer { server.kill(); path.down() }
        let off = try path.run(in: path.clientNamespace, "/usr/sbin/sysctl", ["-qw", "net.mptcp.enabled=0"], timeout: 10)
        XCTAssertEqual(off.status, 0, off.stderr)
        let (tx, c0, c1) = try probeCaptured(path, ["--mptcp"])
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        XCTAssertNil(tx["mptcp"], "a plain TCP socket has no mptcp member")
        XCTAssertEqual(c0.count, 1, "\(c0)")
        XCTAssertEqual(c0.values.first?.multipathPackets, 0, "no MPTCP option on the wire: \(c0)")
        XCTAssertEqual(c1.count, 0, "nothing on the second path: \(c1)")
    }

    /// `--mptcp` against nginx, which speaks plain TCP: the kernel falls back (its MPCapableFallbackSYNACK counter
    /// grows: the SYN/ACK had no MP_CAPABLE), the transaction says `negotiated: false` with no subflows, and the
    /// download is whole (the file's size on disk).
    func testAgainstAPlainTCPServerTheConnectionFallsBackAndTheDownloadSucceeds() throws {
        let servers = try TestServers.get()
        let before = try fallbackCount()
        let report = CLIHarness.temporaryPath("mptcp-fallback.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", "--mptcp", "http://127.0.0.1:\(servers.httpPort)/bytes/1m.bin",
                                          "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        let mptcp = try XCTUnwrap(tx["mptcp"] as? [String: Any], "no mptcp member: \(tx)")
        XCTAssertEqual(mptcp["negotiated"] as? Bool, false)
        XCTAssertEqual((mptcp["subflows"] as? [Any])?.count, 0)
        let file = servers.nginxDir + "/www/bytes/1m.bin"
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, size)
        XCTAssertEqual(tx["statusCode"] as? Int, 200)
        XCTAssertGreaterThan(try fallbackCount(), before, "the kernel counted the fallback")
    }

    /// A check with `mptcp: true` opens its connection as MPTCP too: against nginx the kernel counts one more
    /// fallback, and the check passes.
    func testACheckWithMPTCPOpensAnMPTCPSocket() throws {
        let servers = try TestServers.get()
        let config = CLIHarness.temporaryPath("mptcp-check.yaml")
        defer { unlink(config) }
        try """
            checks:
              - name: multipath
                url: http://127.0.0.1:\(servers.httpPort)/small.txt
                mptcp: true
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let before = try fallbackCount()
        let check = try CLIHarness.run(["check", config, "--no-history"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertGreaterThan(try fallbackCount(), before, "the check's socket was MPTCP and fell back")
    }

    /// The kernel's count of MPTCP connections whose SYN/ACK came without MP_CAPABLE (/proc/net/netstat, MPTcpExt).
    private func fallbackCount() throws -> Int {
        try KernelCounters.mptcp().value("MPCapableFallbackSYNACK")
    }
}
