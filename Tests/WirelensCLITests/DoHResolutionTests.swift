import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--doh-url` and `--doh-insecure` (issue 31 item 2) against a DNS-over-HTTPS server of the test's own
/// (scripts/doh-server.py): its log of the queries it answered is the witness of what the probe resolved through it,
/// and each transaction's `domainResolutionProtocol` says how its name was resolved.
final class DoHResolutionTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Runs `wirelens probe` with a JSON report; the outcome and the report's transactions, in task order.
    private func probe(_ arguments: [String]) throws -> (outcome: ProcessRunner.Outcome, transactions: [[String: Any]]) {
        let report = CLIHarness.temporaryPath("doh.json")
        paths.append(report)
        let outcome = try CLIHarness.run(["probe", "-q", "--format", "json", "--report", report] + arguments)
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        return (outcome, tasks.flatMap { ($0["transactions"] as? [[String: Any]]) ?? [] })
    }

    private static func instant(_ text: Any?) -> Double? {
        guard let text = text as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)?.timeIntervalSince1970
    }

    /// A name resolved through the DoH server: the server logged libcurl's A and AAAA queries for it (POST, as
    /// libcurl 7.88 sends them), nginx answered, and the transaction says `https`, with the DoH answers' time inside
    /// its DNS phase: at least the server's 150 ms delay, and no earlier than the server's last answer left.
    func testNameResolvesThroughTheDoHServer() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer(delayMillis: 150)
        let url = "http://wirelens.test:\(servers.httpPort)/small.txt"
        let (outcome, transactions) = try probe(["--doh-url", doh.url, "--cacert", doh.certPath, url])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let tx = try XCTUnwrap(transactions.first)
        XCTAssertEqual(tx["statusCode"] as? Int, 200)
        XCTAssertEqual(tx["domainResolutionProtocol"] as? String, "https")
        let queries = try doh.queries()
        XCTAssertEqual(Set(queries.compactMap(\.type)), ["A", "AAAA"], "\(queries)")
        XCTAssertEqual(Set(queries.compactMap(\.name)), ["wirelens.test"])
        XCTAssertEqual(Set(queries.compactMap(\.method)), ["POST"])
        let dns = try XCTUnwrap((tx["phasesMs"] as? [String: Any])?["dns"] as? Double, "\(tx)")
        let dohMs = try XCTUnwrap(tx["dohMs"] as? Double, "\(tx)")
        XCTAssertGreaterThanOrEqual(dohMs, 150)
        XCTAssertLessThanOrEqual(dohMs, dns)
        let timestamps = try XCTUnwrap(tx["timestamps"] as? [String: Any])
        let start = try XCTUnwrap(Self.instant(timestamps["domainLookupStart"]))
        let firstQuery = try XCTUnwrap(queries.compactMap(\.receivedAt).min())
        let lastAnswer = try XCTUnwrap(queries.compactMap(\.sentAt).max())
        // Within 5 ms: the report's instants are the monotonic clock placed on the wall clock once per run.
        XCTAssertLessThanOrEqual(start, firstQuery + 0.005, "the lookup began before the server got a query")
        XCTAssertGreaterThanOrEqual(start + dohMs / 1000, lastAnswer - 0.005, "the DoH answers ended before the last left")
        XCTAssertLessThan(start + dohMs / 1000, lastAnswer + 0.2, "the DoH answers ended long after the last left")
        print("DoH: dns \(dns) ms, doh \(dohMs) ms, server's last answer \((lastAnswer - start) * 1000) ms after the start")
    }

    /// With `-4` libcurl asks the DoH server for the A record only; a second task to the same host on the kept
    /// connection resolves nothing (null), and no further query reaches the server.
    func testIPv4AsksForAOnlyAndAReusedConnectionResolvesNothing() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer()
        let url = "http://wirelens.test:\(servers.httpPort)/small.txt"
        let (outcome, transactions) = try probe(["--doh-url", doh.url, "--cacert", doh.certPath, "-4",
                                                 "--repeat", "2", "--concurrency", "1", url])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(transactions.count, 2)
        XCTAssertEqual(transactions.first?["domainResolutionProtocol"] as? String, "https")
        XCTAssertEqual(transactions.last?["reusedConnection"] as? Bool, true)
        XCTAssertTrue(transactions.last?["domainResolutionProtocol"] is NSNull, "\(transactions.last ?? [:])")
        XCTAssertNil(transactions.last?["dohMs"])
        XCTAssertEqual(try doh.queries().map { "\($0.name ?? "") \($0.type ?? "")" }, ["wirelens.test A"])
    }

    /// Without `--doh-url` a name goes to the system resolver (`udp`; getent agrees on its address); an IP literal and
    /// a `--resolve` entry resolve nothing (null), and none of them has `dohMs`.
    func testSystemResolverIPLiteralAndResolveEntry() throws {
        let servers = try TestServers.get()
        var name = [CChar](repeating: 0, count: 256)
        XCTAssertEqual(gethostname(&name, name.count), 0)
        let host = String(cString: name)
        let getent = try ProcessRunner.run("/usr/bin/env", ["getent", "ahostsv4", host], timeout: 10)
        guard getent.stdout.hasPrefix("127.0.0.1 ") else {
            throw XCTSkip("this host's name (\(host)) does not resolve to 127.0.0.1: \(getent.stdout)")
        }
        let port = servers.httpPort
        let system = try probe(["-4", "http://\(host):\(port)/small.txt"])
        XCTAssertEqual(system.outcome.status, 0, system.outcome.stderr)
        XCTAssertEqual(system.transactions.first?["domainResolutionProtocol"] as? String, "udp")
        XCTAssertEqual(system.transactions.first?["remoteAddress"] as? String, "127.0.0.1")
        for arguments in [["http://127.0.0.1:\(port)/small.txt"],
                          ["--resolve", "wirelens.test:\(port):127.0.0.1", "http://wirelens.test:\(port)/small.txt"]] {
            let run = try probe(arguments)
            XCTAssertEqual(run.outcome.status, 0, run.outcome.stderr)
            let tx = try XCTUnwrap(run.transactions.first)
            XCTAssertTrue(tx["domainResolutionProtocol"] is NSNull, "\(arguments): \(tx)")
            XCTAssertNil(tx["dohMs"])
        }
    }

    /// A DoH server whose certificate the probe does not trust fails the task before any connection to the target:
    /// one line naming the DoH URL, exit 5 (dns; curl's own exit is 6, "Could not resolve host"); `--doh-insecure`
    /// skips the DoH server's check alone and the name resolves.
    func testUntrustedDoHServerFailsUnlessDoHInsecure() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer()
        let url = "http://wirelens.test:\(servers.httpPort)/small.txt"
        try CLIHarness.assertFails(["probe", "-q", "--doh-url", doh.url, url], code: .dns, mention: doh.url)
        // -k is the target's, not the DoH server's: curl's --insecure does not reach DoH either.
        try CLIHarness.assertFails(["probe", "-q", "-k", "--doh-url", doh.url, url], code: .dns, mention: doh.url)
        XCTAssertEqual(try doh.queries().count, 0, "a query went through an untrusted TLS connection")
        let (outcome, transactions) = try probe(["--doh-url", doh.url, "--doh-insecure", url])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(transactions.first?["domainResolutionProtocol"] as? String, "https")
        XCTAssertFalse(try doh.queries().isEmpty)
    }

    /// The test peer itself, with curl as the client and RFC 8484's own example query (section 4.1, www.example.com A,
    /// ID 0) as the bytes: GET with `?dns=` and POST with `application/dns-message` both get a DNS answer for it (ID 0,
    /// NOERROR, one A record, 192.0.2.1 at its end), and the log names the method of each.
    func testDoHServerAnswersRFC8484sExampleByGETAndPOST() throws {
        let doh = try DoHServer(records: ["www.example.com=192.0.2.1"])
        let query: [UInt8] = [0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x77, 0x77,
                              0x77, 0x07, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x03, 0x63, 0x6f, 0x6d, 0x00, 0x00,
                              0x01, 0x00, 0x01]
        let queryFile = CLIHarness.temporaryPath("query.bin")
        paths.append(queryFile)
        try Data(query).write(to: URL(fileURLWithPath: queryFile))
        let get = ["\(doh.url)?dns=AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB"]
        let post = ["-H", "Content-Type: application/dns-message", "--data-binary", "@" + queryFile, doh.url]
        for (method, arguments) in [("GET", get), ("POST", post)] {
            let answerFile = CLIHarness.temporaryPath("answer.bin")
            paths.append(answerFile)
            let curl = try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "--cacert", doh.certPath, "-o", answerFile,
                                                              "-w", "%{http_code} %{content_type}"] + arguments,
                                             timeout: 30)
            XCTAssertEqual(curl.stdout, "200 application/dns-message", "\(method): \(curl.stderr)")
            let answer = [UInt8](try Data(contentsOf: URL(fileURLWithPath: answerFile)))
            XCTAssertGreaterThanOrEqual(answer.count, query.count + 16, method)
            XCTAssertEqual(Array(answer.prefix(2)), [0, 0], "\(method): the query's ID")
            XCTAssertEqual(answer[3] & 0x0F, 0, "\(method): NOERROR")
            XCTAssertEqual(Array(answer[6..<8]), [0, 1], "\(method): one answer")
            XCTAssertEqual(Array(answer.suffix(4)), [192, 0, 2, 1], method)
        }
        XCTAssertEqual(try doh.queries().map { "\($0.method ?? "") \($0.name ?? "") \($0.type ?? "")" },
                       ["GET www.example.com A", "POST www.example.com A"])
    }

    /// `download` and `check` resolve through the DoH server too: its log has the name's queries after each, and
    /// the file is nginx's.
    func testDownloadAndCheckResolveThroughTheDoHServer() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer()
        let file = CLIHarness.temporaryPath("1k.bin")
        paths.append(file)
        let download = try CLIHarness.run(["download", "-q", "--doh-url", doh.url, "--cacert", doh.certPath, "-4",
                                           "http://wirelens.test:\(servers.httpPort)/bytes/1k.bin", "-o", file])
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)),
                       try Data(contentsOf: URL(fileURLWithPath: servers.nginxDir + "/www/bytes/1k.bin")))
        XCTAssertEqual(try doh.queries().map { "\($0.name ?? "") \($0.type ?? "")" }, ["wirelens.test A"])
        let config = CLIHarness.temporaryPath("checks.yaml")
        paths.append(config)
        try """
            checks:
              - name: doh
                url: http://a.wirelens.test:\(servers.httpPort)/small.txt
                doh_url: \(doh.url)
                doh_insecure: true
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let check = try CLIHarness.run(["check", config, "--no-history"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        let queried = try doh.queries().compactMap(\.name)
        XCTAssertTrue(queried.contains("a.wirelens.test"), "\(queried)")
    }

    /// `upload` resolves the target's name through the DoH server: the upload completes (the target checked its
    /// SHA-256), its first transaction says `https`, and the server logged the name's A query.
    func testUploadResolvesThroughTheDoHServer() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer()
        let file = CLIHarness.temporaryPath("upload.bin")
        let journal = CLIHarness.temporaryPath("journal.sqlite")
        let report = CLIHarness.temporaryPath("upload.json")
        paths += [file, journal, report]
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: file))
        let url = "http://wirelens.test:\(servers.targetPort)/upload/doh-\(UUID().uuidString)"
        let upload = try CLIHarness.run(["upload", file, url, "--segment-size", "128KiB", "--journal", journal,
                                         "--doh-url", doh.url, "--doh-insecure", "-4", "-q", "--format", "json",
                                         "--report", report], timeout: 120)
        XCTAssertEqual(upload.status, 0, upload.stderr)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        let first = try CLIHarness.firstTransaction(ofReport: report).transaction
        XCTAssertEqual(first["domainResolutionProtocol"] as? String, "https", "\(first)")
        XCTAssertTrue(try doh.queries().contains { $0.name == "wirelens.test" && $0.type == "A" })
    }

    /// `compare` resolves through the DoH server in each of its runs: the runs' transactions (wirelens.report/1 inside
    /// the compare document, valid against both schemas) say `https`, and the server logged the name's queries.
    func testCompareResolvesThroughTheDoHServer() throws {
        let servers = try TestServers.get()
        let doh = try DoHServer()
        let report = CLIHarness.temporaryPath("compare.json")
        paths.append(report)
        let compare = try CLIHarness.run([
            "compare", "-q", "--doh-url", doh.url, "--doh-insecure", "-4", "--modes", "h1", "--limits", "1",
            "--workload", "requests:2", "--repeat", "1", "--format", "json", "--report", report,
            "http://wirelens.test:\(servers.httpPort)/small.txt",
        ], timeout: 120)
        XCTAssertEqual(compare.status, 0, compare.stderr)
        try CLIHarness.assertValid(report, schema: "compare.schema.json")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let said = try NSRegularExpression(pattern: "\"domainResolutionProtocol\" *: *(\"[a-z]+\"|null)")
            .matches(in: text, range: NSRange(text.startIndex..., in: text))
            .compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } }
        XCTAssertTrue(said.contains("\"https\""), "\(said)")
        XCTAssertEqual(Set(try doh.queries().map { "\($0.name ?? "") \($0.type ?? "")" }), ["wirelens.test A"])
    }

    /// A `--doh-url` that is not an https URL is a one-line usage error, exit 2, before any request.
    func testBadDoHURLIsAUsageError() throws {
        for bad in ["not a url", "ftp://127.0.0.1/dns-query", "http://127.0.0.1:8053/dns-query", "https://"] {
            try CLIHarness.assertFails(["probe", "--doh-url", bad, "http://127.0.0.1:9/"], code: .usage,
                                       mention: "--doh-url")
        }
        for command in [["upload", "/dev/null"], ["download", "-o", "/dev/null"], ["compare"]] {
            try CLIHarness.assertFails(command + ["--doh-url", "ftp://x/", "http://127.0.0.1:9/"], code: .usage,
                                       mention: "--doh-url")
        }
    }
}
