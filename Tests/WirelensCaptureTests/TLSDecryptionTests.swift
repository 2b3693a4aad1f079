import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// `capture analyze --keylog` decrypts TLS 1.2 and 1.3 (issue 17 item 1), checked against tshark given the same key
/// log: requests per connection (HTTP/1.1), HTTP/2 streams per connection and the most of them open at once, on
/// captures the tests make of curl against an nginx forcing each cipher suite in turn (a resumed session and a
/// TLS 1.3 key update among them). Without keys the exchanges stay inferred and say so.
final class TLSDecryptionTests: XCTestCase {
    /// A capture of curl's traffic to every forced server, and the key log curl wrote for it.
    struct Recorded: Sendable {
        let capture: String
        let keyLog: String
        let nginx: TLSNginx
    }

    /// Made once for the class (about 10 s): each server gets an h2 connection of six parallel downloads (four at
    /// once), an HTTP/1.1 keep-alive connection of three requests, and two HTTP/1.1 connections closed after their
    /// request (with TLS 1.3 the second resumes the first's session; TLS 1.2 servers get two more from openssl
    /// s_client, the second resumed); the TLS 1.3 AES-128 server also gets a connection that updates its keys between
    /// two requests (openssl s_client's `K`).
    static let recorded: Result<Recorded, TestServerError> = {
        do {
            let nginx = try TLSNginx.shared.get()
            let keyLog = recordingPaths.keyLog
            let filter = nginx.servers.map { "tcp port \($0.port)" }.joined(separator: " or ")
            let capture = try LoopbackCapture.record(filter: filter) {
                setenv("SSLKEYLOGFILE", keyLog, 1)
                defer { unsetenv("SSLKEYLOGFILE") }
                for s in nginx.servers {
                    let big = nginx.url(s, "/200k.bin"), small = nginx.url(s, "/small.txt")
                    if s.ianaName.contains("CBC") {
                        try LoopbackCapture.curl(["-k", "--http1.1", small, "-o", "/dev/null"])
                        continue
                    }
                    try LoopbackCapture.curl(["-k", "--http2", "--parallel", "--parallel-max", "4"]
                        + (0..<6).flatMap { _ in [big, "-o", "/dev/null"] })
                    try LoopbackCapture.curl(["-k", "--http1.1"] + (0..<3).flatMap { _ in [small, "-o", "/dev/null"] })
                    try LoopbackCapture.curl(["-k", "--http1.1", "-H", "Connection: close", small, "-o", "/dev/null",
                                              small, "-o", "/dev/null"])
                    if s.version == "TLSv1.2" { try resumption(port: s.port, keyLog: keyLog) }
                }
                if let s = nginx.server("TLS_AES_128_GCM_SHA256") {
                    try keyUpdate(port: s.port, keyLog: keyLog)
                }
            }
            guard rename(capture, recordingPaths.capture) == 0 else {
                unlink(capture)
                throw TestServerError(message: "cannot move the capture to \(recordingPaths.capture): errno \(errno)")
            }
            return .success(Recorded(capture: recordingPaths.capture, keyLog: keyLog, nginx: nginx))
        } catch let error as TestServerError {
            return .failure(error)
        } catch {
            return .failure(TestServerError(message: "\(error)"))
        }
    }()

    /// Two TLS 1.2 connections of one request each, the second resuming the first's session (libcurl 7.88 does not
    /// resume TLS 1.2 sessions with this nginx; openssl s_client does, by ticket).
    private static func resumption(port: Int, keyLog: String) throws {
        let session = LoopbackCapture.temporaryPath("session.pem")
        defer { unlink(session) }
        for option in ["-sess_out", "-sess_in"] {
            let script = """
                (printf 'GET /small.txt HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n'; sleep 0.3) |
                openssl s_client -connect 127.0.0.1:\(port) -tls1_2 -alpn http/1.1 -keylogfile \(keyLog) \(option) \(session)
                """
            let run = try ProcessRunner.run("/bin/bash", ["-c", script], timeout: 20)
            guard run.status == 0, run.stdout.contains(option == "-sess_in" ? "Reused, TLSv1.2" : "New, TLSv1.2") else {
                throw TestServerError(message: "s_client \(option) failed: \(run.stdout) \(run.stderr)")
            }
        }
    }

    /// Two requests on one TLS 1.3 connection with a KeyUpdate (both sides update) between them.
    private static func keyUpdate(port: Int, keyLog: String) throws {
        let script = """
            (printf 'GET /small.txt HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n'; sleep 0.3; echo K; sleep 0.3;
             printf 'GET /small.txt HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n'; sleep 0.5) |
            openssl s_client -connect 127.0.0.1:\(port) -tls1_3 -alpn http/1.1 -keylogfile \(keyLog) >/dev/null 2>&1
            """
        // s_client's exit status after its input ends says nothing here: the capture and tshark tell what happened.
        _ = try ProcessRunner.run("/bin/bash", ["-c", script], timeout: 20)
    }

    /// Where the class's recording and its key log are kept, known before they are made: the class's teardown
    /// removes them without making them (`recorded` is made on first use, by a test that needs it).
    static let recordingPaths = (capture: LoopbackCapture.temporaryPath("tls-capture.pcap"),
                                 keyLog: LoopbackCapture.temporaryPath("keys.log"))

    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    override class func tearDown() {
        unlink(recordingPaths.capture)
        unlink(recordingPaths.keyLog)
        super.tearDown()
    }

    // MARK: the oracle

    /// tshark's reading of the decrypted capture, per connection (client port and server port: the kernel may give
    /// two connections to different servers the same client port): HTTP/1.x requests, HTTP/2 streams the client
    /// opened, and the most streams open at once (from the client's HEADERS to the server's END_STREAM or a
    /// RST_STREAM either way, frames in capture order), printed as `client server h1 streams max` lines. tshark now
    /// and then stops dissecting a connection's server side part way (its later records show as bare application
    /// data, its streams' ends unseen): the most at once is then -1, unknown to the oracle.
    private static let oracle = """
        import sys
        rows, servers = sys.argv[1], set(int(p) for p in sys.argv[2].split(","))
        conn = {}
        for line in open(rows):
            f = line.rstrip("\\n").split("\\t")
            if len(f) < 7: continue
            src, dst = int(f[1]), int(f[2])
            client, server = (dst, src) if src in servers else (src, dst)
            c = conn.setdefault((client, server), {"h1": 0, "streams": set(), "open": set(), "max": 0, "ended": set()})
            fromClient = src == client
            c["h1"] += len([m for m in f[6].split(",") if m]) if fromClient else 0
            types, ids, flags = f[3].split(","), f[4].split(","), f[5].split(",")
            if not f[3]: continue
            for t, i, fl in zip(types, ids, flags):
                t, i, fl = int(t), int(i), int(fl, 16)
                if t == 1 and fromClient and i not in c["streams"]:
                    c["streams"].add(i); c["open"].add(i); c["max"] = max(c["max"], len(c["open"]))
                elif t in (0, 1) and not fromClient and fl & 1:
                    c["open"].discard(i); c["ended"].add(i)
                elif t == 3:
                    c["open"].discard(i); c["ended"].add(i)
        for (client, server), c in sorted(conn.items()):
            most = c["max"] if c["streams"] <= c["ended"] else -1
            print(client, server, c["h1"], len(c["streams"]), most)
        """

    /// `connection key (Self.key) → [h1 requests, h2 streams, h2 max at once]` as tshark reads the capture with
    /// `keyLog`.
    private func tshark(_ recorded: Recorded, keyLog: String) throws -> [Int: [Int]] {
        let rows = LoopbackCapture.temporaryPath("rows.tsv")
        toRemove.append(rows)
        let out = try ProcessRunner.run("/usr/bin/tshark", [
            "-r", recorded.capture, "-o", "tls.keylog_file:\(keyLog)", "-Y", "http2 || http.request", "-T", "fields",
            "-e", "frame.number", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "http2.type", "-e", "http2.streamid",
            "-e", "http2.flags", "-e", "http.request.method"], timeout: 60)
        XCTAssertEqual(out.status, 0, out.stderr)
        try out.stdout.write(toFile: rows, atomically: true, encoding: .utf8)
        let ports = recorded.nginx.servers.map { String($0.port) }.joined(separator: ",")
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", Self.oracle, rows, ports], timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        var result: [Int: [Int]] = [:]
        for line in check.stdout.split(separator: "\n") {
            let v = line.split(separator: " ").compactMap { Int($0) }
            if v.count == 5 { result[v[0] << 16 | v[1]] = Array(v[2...]) }
        }
        return result
    }

    /// The analysis's JSON report of the capture (with `keyLog` when given), its stderr and exit status.
    private func analyze(_ recorded: Recorded, keyLog: String?, format: String = "json") throws
        -> (doc: [String: Any], text: String, stderr: String, status: Int32) {
        var arguments = ["capture", "analyze", recorded.capture, "--format", format]
        if let keyLog { arguments += ["--keylog", keyLog] }
        let run = try WirelensCLI.run(arguments, timeout: 60)
        let doc = format == "json"
            ? (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:] : [:]
        return (doc, run.stdout, run.stderr, run.status)
    }

    private static func connections(_ doc: [String: Any]) -> [[String: Any]] {
        doc["connections"] as? [[String: Any]] ?? []
    }

    private static func clientPort(_ c: [String: Any]) -> Int { (c["client"] as? [String: Any])?["port"] as? Int ?? 0 }
    private static func serverPort(_ c: [String: Any]) -> Int { (c["server"] as? [String: Any])?["port"] as? Int ?? 0 }
    private static func tls(_ c: [String: Any]) -> [String: Any] { c["tls"] as? [String: Any] ?? [:] }

    /// A connection's key: its client port and server port.
    private static func key(_ c: [String: Any]) -> Int { clientPort(c) << 16 | serverPort(c) }

    /// `figures(doc)` with the most streams at once left out (-1) where tshark's reading (`wire`) could not tell it.
    private static func figures(_ doc: [String: Any], as wire: [Int: [Int]]) -> [Int: [Int]] {
        var result = figures(doc)
        for (key, seen) in wire where seen.count == 3 && seen[2] < 0 { result[key]?[2] = -1 }
        return result
    }

    /// `connection key → [h1 requests, h2 streams, h2 max at once]` from the analysis.
    private static func figures(_ doc: [String: Any]) -> [Int: [Int]] {
        var result: [Int: [Int]] = [:]
        for c in connections(doc) {
            let exchanges = c["exchanges"] as? [[String: Any]] ?? []
            let h2 = c["http2"] as? [String: Any]
            let h1 = exchanges.filter { $0["stream"] is NSNull && $0["method"] is String }.count
            let streams = h2?["streams"] as? Int ?? 0, most = h2?["maxConcurrentStreams"] as? Int ?? 0
            if h1 + streams > 0 { result[key(c)] = [h1, streams, most] }
        }
        return result
    }

    // MARK: tests

    /// Every connection of every forced suite decrypts, and its requests, streams and streams at once are tshark's.
    func testEachCipherSuiteDecryptsAsTsharkReadsIt() throws {
        let recorded = try Self.recorded.get()
        let wire = try tshark(recorded, keyLog: recorded.keyLog)
        let (doc, _, stderr, status) = try analyze(recorded, keyLog: recorded.keyLog)
        XCTAssertEqual(status, 0, stderr)
        // tshark also decrypts the CBC suite, which the analysis names as not decrypted (its exchanges inferred).
        let cbc = Set(Self.connections(doc).filter { Self.tls($0)["decryption"] as? String == "unsupported-cipher-suite" }
            .map(Self.key))
        XCTAssertEqual(cbc.count, 1)
        XCTAssertEqual(Self.figures(doc, as: wire).filter { !cbc.contains($0.key) }, wire.filter { !cbc.contains($0.key) },
                       "requests / streams / streams at once per client port")
        // The oracle saw what the workload made: h2 with four streams at once somewhere, keep-alive with three.
        XCTAssertTrue(wire.values.contains { $0[1] == 6 && $0[2] >= 2 }, "\(wire)")
        XCTAssertTrue(wire.values.contains { $0[0] == 3 }, "\(wire)")
        let nginx = recorded.nginx
        for c in Self.connections(doc) {
            let tls = Self.tls(c)
            guard let server = nginx.servers.first(where: { $0.port == Self.serverPort(c) }) else { continue }
            XCTAssertEqual(tls["cipherSuite"] as? String, server.ianaName, "\(c)")
            XCTAssertEqual(tls["version"] as? String, server.version)
            if server.ianaName.contains("CBC") {
                XCTAssertEqual(tls["decryption"] as? String, "unsupported-cipher-suite", "\(tls)")
                XCTAssertTrue((tls["decryptionNote"] as? String)?.contains(server.ianaName) == true, "\(tls)")
                XCTAssertEqual(tls["exchangesInferred"] as? Bool, true)
            } else {
                XCTAssertEqual(tls["decryption"] as? String, "decrypted", "\(server.ianaName): \(tls)")
                XCTAssertEqual(tls["exchangesInferred"] as? Bool, false)
                let exchanges = c["exchanges"] as? [[String: Any]] ?? []
                XCTAssertTrue(exchanges.allSatisfy { $0["statusCode"] as? Int == 200 && $0["inferred"] as? Bool == false },
                              "\(server.ianaName): \(exchanges)")
            }
        }
        // Per suite, the second "Connection: close" connection resumed the first's session.
        for server in nginx.servers where !server.ianaName.contains("CBC") {
            let mine = Self.connections(doc).filter { Self.serverPort($0) == server.port }
            XCTAssertTrue(mine.contains { Self.tls($0)["resumed"] as? Bool == true }, "\(server.ianaName) resumed none")
        }
    }

    /// The TLS 1.3 connection that updated its keys: both requests read after the KeyUpdate, as tshark reads them.
    func testAKeyUpdateIsFollowed() throws {
        let recorded = try Self.recorded.get()
        let port = try XCTUnwrap(recorded.nginx.server("TLS_AES_128_GCM_SHA256")?.port)
        let (doc, _, _, _) = try analyze(recorded, keyLog: recorded.keyLog)
        let wire = try tshark(recorded, keyLog: recorded.keyLog)
        // s_client's connection: to 127.0.0.1 without a server name (curl's name localhost).
        let updated = Self.connections(doc).filter { Self.serverPort($0) == port && Self.tls($0)["serverName"] is NSNull }
        XCTAssertEqual(updated.count, 1)
        let client = try XCTUnwrap(updated.first.map(Self.clientPort))
        let key = try XCTUnwrap(updated.first.map(Self.key))
        XCTAssertEqual(wire[key], [2, 0, 0], "tshark reads both requests")
        XCTAssertEqual(Self.figures(doc)[key], [2, 0, 0])
        // The keys were updated on that connection (tshark sees the KeyUpdate messages with the key log).
        let updates = try ProcessRunner.run("/usr/bin/tshark", [
            "-r", recorded.capture, "-o", "tls.keylog_file:\(recorded.keyLog)", "-Y",
            "tls.handshake.type == 24 && tcp.port == \(client)", "-T", "fields", "-e", "frame.number"], timeout: 60)
        XCTAssertGreaterThanOrEqual(updates.stdout.split(separator: "\n").count, 2, "a KeyUpdate each way")
    }

    /// Without a key log: every TLS connection's exchanges are inferred and marked so in JSON and text, a caveat says
    /// what cannot be verified, and the summary prints no HTTP/1 pipelining figure for a capture without any HTTP/1
    /// exchange read.
    func testWithoutKeysExchangesStayInferredAndSaySo() throws {
        let recorded = try Self.recorded.get()
        let (doc, _, _, status) = try analyze(recorded, keyLog: nil)
        XCTAssertEqual(status, 0)
        let all = Self.connections(doc)
        XCTAssertFalse(all.isEmpty)
        for c in all {
            XCTAssertEqual(Self.tls(c)["exchangesInferred"] as? Bool, true)
            XCTAssertEqual(Self.tls(c)["decryption"] as? String, "no-key-log")
        }
        let caveats = doc["caveats"] as? [[String: Any]] ?? []
        let caveat = try XCTUnwrap(caveats.first { $0["id"] as? String == "tls-inferred" }?["text"] as? String)
        XCTAssertTrue(caveat.contains("\(all.count) of \(all.count) TLS connections were not decrypted"), caveat)
        XCTAssertTrue(caveat.contains("--keylog"), caveat)
        let text = try analyze(recorded, keyLog: nil, format: "text").text
        XCTAssertTrue(text.contains("not decrypted (no key log): exchanges inferred"), text)
        XCTAssertFalse(text.contains("pipelined"), "no pipelining figures without an HTTP/1 exchange read:\n\(text)")
    }

    /// A key log with malformed lines, holding the keys of only some connections (and of sessions not in the
    /// capture), and with one connection's secret altered: one warning naming the first bad line, the rest used;
    /// the connections without keys say so, the altered one is undecryptable, the others still match tshark.
    func testABadKeyLogIsUsedAsFarAsItGoes() throws {
        let recorded = try Self.recorded.get()
        var lines = try String(contentsOfFile: recorded.keyLog, encoding: .utf8).split(separator: "\n").map(String.init)
        // Keep the TLS 1.2 lines (CLIENT_RANDOM) and the TLS 1.3 ones of all but the TLS 1.3 ChaCha20 server's
        // connections: drop the lines of the client randoms of that server's hellos, found by tshark.
        let chacha = try XCTUnwrap(recorded.nginx.server("TLS_CHACHA20_POLY1305_SHA256")?.port)
        let randoms = try ProcessRunner.run("/usr/bin/tshark", [
            "-r", recorded.capture, "-Y", "tls.handshake.type == 1 && tcp.dstport == \(chacha)", "-T", "fields",
            "-e", "tls.handshake.random"], timeout: 60).stdout
            .split(separator: "\n").map { $0.replacingOccurrences(of: ":", with: "").lowercased() }
        XCTAssertFalse(randoms.isEmpty)
        lines.removeAll { line in randoms.contains { line.lowercased().contains($0) } }
        // Alter the first TLS 1.2 master secret (its connection: undecryptable).
        let altered = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("CLIENT_RANDOM ") })
        var fields = lines[altered].split(separator: " ").map(String.init)
        fields[2] = String(fields[2].reversed())
        lines[altered] = fields.joined(separator: " ")
        let badRandom = fields[1].lowercased()
        lines.insert("this is not a key log line", at: 2)
        lines.insert("CLIENT_RANDOM zz 00", at: 5)
        lines.append("CLIENT_RANDOM " + String(repeating: "ab", count: 32) + " " + String(repeating: "cd", count: 48))
        let path = LoopbackCapture.temporaryPath("bad-keys.log")
        toRemove.append(path)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)

        let (doc, _, stderr, status) = try analyze(recorded, keyLog: path)
        XCTAssertEqual(status, 0, stderr)
        let warnings = stderr.split(separator: "\n").filter { $0.contains("not a key log line") }
        XCTAssertEqual(warnings.count, 1, stderr)
        XCTAssertTrue(warnings.first?.contains("line 3 ") == true && warnings.first?.contains("and 1 more") == true,
                      stderr)
        let wire = try tshark(recorded, keyLog: path)
        var kinds: [String: Int] = [:]
        let mine = Self.figures(doc, as: wire)
        for c in Self.connections(doc) {
            let kind = Self.tls(c)["decryption"] as? String ?? "?"
            kinds[kind, default: 0] += 1
            let port = Self.key(c)
            if Self.serverPort(c) == chacha { XCTAssertEqual(kind, "keys-missing", "\(Self.tls(c))") }
            // What was decrypted reads as tshark reads it with the same log; what was not, tshark could not read.
            if kind == "decrypted" {
                XCTAssertEqual(mine[port], wire[port], "client port \(port)")
            } else if kind != "unsupported-cipher-suite" {
                XCTAssertNil(wire[port], "tshark decrypted client port \(port), marked \(kind)")
            }
        }
        XCTAssertEqual(kinds["undecryptable"], 1, "\(kinds)")
        XCTAssertEqual(kinds["unsupported-cipher-suite"], 1, "\(kinds)")
        XCTAssertGreaterThanOrEqual(kinds["keys-missing"] ?? 0, 4, "\(kinds)")
        XCTAssertGreaterThanOrEqual(kinds["decrypted"] ?? 0, 15, "\(kinds)")
        XCTAssertFalse(stderr.contains(badRandom))
    }

    /// A key log that cannot be read: one line naming it, exit 3, no report.
    func testAMissingKeyLogIsALocalFileError() throws {
        let recorded = try Self.recorded.get()
        let (_, text, stderr, status) = try analyze(recorded, keyLog: "/nonexistent/keys.log", format: "text")
        XCTAssertEqual(status, 3, "exit 3: a local file could not be read")
        XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
        XCTAssertTrue(stderr.contains("/nonexistent/keys.log"), stderr)
        XCTAssertEqual(text, "")
    }

    // MARK: probe --capture over HTTPS

    /// The shared test nginx's h2 figures per client port, as tshark reads `capture` with `keyLog`.
    private func tsharkFigures(capture: String, keyLog: String, serverPort: Int) throws -> [Int: [Int]] {
        let nginx = try TLSNginx.shared.get()
        let recorded = Recorded(capture: capture, keyLog: keyLog,
                                nginx: TLSNginx(copying: nginx, ports: [serverPort]))
        return try tshark(recorded, keyLog: keyLog)
    }

    /// A live `probe --capture` of 50 HTTPS h2 requests at concurrency 4 verifies every stream: libcurl writes the
    /// key log the probe set up, every transaction is joined to its stream, no disagreement, and the streams per
    /// connection and at once are tshark's with the same key log. The kept key log (`--keylog`) is mode 0600 and
    /// none of its secrets is in either report; without `--keylog` the temporary one is gone after the run.
    func testALiveHTTPSProbeVerifiesEveryStream() throws {
        let servers = try TestServers.get()
        let directory = LoopbackCapture.temporaryPath("tmpdir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pcap = directory + "-live.pcap", wire = directory + "-wire.json", kept = directory + "-keys.log"
        let probeReport = directory + "-probe.json"
        toRemove += [pcap, wire, kept, probeReport]
        unsetenv("SSLKEYLOGFILE")
        let run = try WirelensCLI.run(["probe", servers.https("/bytes/1k.bin"), "--cacert", servers.certPath, "--http2",
                                       "--repeat", "50", "--concurrency", "4", "--capture", "--capture-file", pcap,
                                       "--capture-report", wire, "--keylog", kept, "--format", "json",
                                       "--report", probeReport, "-q"], timeout: 90)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("the wire agrees with the report"), run.stderr)
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: wire)))
            as? [String: Any])
        let v = try XCTUnwrap(doc["verification"] as? [String: Any])
        XCTAssertEqual((v["disagreements"] as? [Any])?.count, 0, "\(v)")
        XCTAssertNil(v["notVerifiable"], "every connection decrypted")
        let transactions = try XCTUnwrap(v["transactions"] as? [[String: Any]])
        XCTAssertEqual(transactions.count, 50)
        XCTAssertTrue(transactions.allSatisfy { $0["exchange"] is Int }, "every transaction joined to its stream")
        let seen = try tsharkFigures(capture: pcap, keyLog: kept, serverPort: servers.httpsPort)
        let mine = Self.figures(doc, as: seen).filter { $0.value[1] > 0 }
        XCTAssertEqual(mine.values.reduce(0) { $0 + $1[1] }, 50, "\(mine)")
        XCTAssertEqual(mine, seen.filter { $0.value[1] > 0 }, "streams and streams at once per connection")
        // The key log: kept where asked, private, and in no report.
        var status = stat()
        XCTAssertEqual(stat(kept, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
        let secrets = try String(contentsOfFile: kept, encoding: .utf8).split(separator: "\n")
            .compactMap { $0.split(separator: " ").last.map(String.init) }.filter { $0.count >= 64 }
        XCTAssertFalse(secrets.isEmpty)
        let reports = try String(contentsOfFile: wire, encoding: .utf8) + String(contentsOfFile: probeReport, encoding: .utf8)
        for secret in secrets { XCTAssertFalse(reports.lowercased().contains(secret.lowercased())) }

        // The same capture and report checked afterwards: with the key log every stream agrees; without it the
        // verification cannot see the streams and says so instead of agreeing (main said "the wire agrees").
        let withKeys = try WirelensCLI.run(["capture", "analyze", pcap, "--probe", probeReport, "--keylog", kept])
        XCTAssertEqual(withKeys.status, 0, withKeys.stderr)
        XCTAssertTrue(withKeys.stdout.contains("Verification: the wire agrees with the probe report"), withKeys.stdout)
        let withoutKeys = try WirelensCLI.run(["capture", "analyze", pcap, "--probe", probeReport])
        XCTAssertEqual(withoutKeys.status, 0, withoutKeys.stderr)
        XCTAssertTrue(withoutKeys.stdout.contains("Verification: 50 of 50 transactions not verifiable without keys"),
                      withoutKeys.stdout)
        XCTAssertFalse(withoutKeys.stdout.contains("the wire agrees"), withoutKeys.stdout)

        // Without --keylog: a temporary key log (in TMPDIR) decrypts the run and is deleted after it.
        setenv("TMPDIR", directory, 1)
        defer { unsetenv("TMPDIR") }
        let again = try WirelensCLI.run(["probe", servers.https("/bytes/1k.bin"), "--cacert", servers.certPath,
                                         "--http2", "--repeat", "8", "--concurrency", "4", "--capture",
                                         "--capture-report", wire, "--format", "json", "-q"], timeout: 90)
        unsetenv("TMPDIR")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("the wire agrees with the report"), again.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "the key log is deleted")
    }
}
