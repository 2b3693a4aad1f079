import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// curl's spellings on `probe` (issue 18), each held to curl itself on the same loopback server: what
/// scripts/redirect-peer.py saw of curl's request and of Wirelens' (method, body length and SHA-256, Host, User-Agent,
/// Authorization, Content-Type), the bytes it wrote for a compressed answer, and the exit codes and stderr of both.
final class CurlSpellingTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    private func temporaryPath(_ name: String) -> String {
        let path = CLIHarness.temporaryPath(name)
        paths.append(path)
        return path
    }

    private func curl(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("/usr/bin/env", ["curl"] + arguments, timeout: 30)
    }

    /// The one request the peer recorded for `tag`.
    private func request(_ peer: RedirectPeer, _ tag: String, file: StaticString = #filePath,
                         line: UInt = #line) throws -> RedirectPeer.Record {
        let records = try peer.records(tag: tag)
        XCTAssertEqual(records.count, 1, "requests for \(tag): \(records)", file: file, line: line)
        return try XCTUnwrap(records.first, file: file, line: line)
    }

    /// -d, --data-binary, -T, -A and -u make the request curl makes: same method, body bytes, Content-Type,
    /// User-Agent and Authorization, as the server saw them.
    func testRequestsAsCurlMakesThem() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let text = temporaryPath("lines.txt")
        try "first=1\r\nsecond=2\nthird=3\n".write(toFile: text, atomically: true, encoding: .utf8)
        let blob = temporaryPath("blob.bin")
        try Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: blob))
        let cases: [(String, [String])] = [
            ("data", ["-d", "a=1", "-d", "b=two words"]),
            ("datafile", ["-d", "@" + text]),
            ("binary", ["--data-binary", "@" + blob]),
            ("binarytext", ["--data-binary", "@" + text]),
            ("upload", ["-T", blob]),
            ("agent", ["-A", "agent/7 (test)"]),
            ("user", ["-u", "bob:s3cr3t:x"]),
            ("datatype", ["-d", "{}", "-H", "Content-Type: application/json"]),
        ]
        for (tag, arguments) in cases {
            let byCurl = try curl(["-sS", "-o", "/dev/null"] + arguments + [peer.url("/record/\(tag)-curl")])
            XCTAssertEqual(byCurl.status, 0, byCurl.stderr)
            let byUs = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", temporaryPath("r.txt")]
                                          + arguments + [peer.url("/record/\(tag)-wl")])
            XCTAssertEqual(byUs.status, 0, "\(tag): \(byUs.stderr)")
            let theirs = try request(peer, "\(tag)-curl")
            let ours = try request(peer, "\(tag)-wl")
            XCTAssertEqual(ours.method, theirs.method, tag)
            XCTAssertEqual(ours.bodyLength, theirs.bodyLength, tag)
            XCTAssertEqual(ours.bodySHA256, theirs.bodySHA256, tag)
            XCTAssertEqual(ours.values("Content-Type"), theirs.values("Content-Type"), tag)
            XCTAssertEqual(ours.values("Authorization"), theirs.values("Authorization"), tag)
            if arguments.contains("-A") { XCTAssertEqual(ours.values("User-Agent"), theirs.values("User-Agent"), tag) }
        }
        // The line breaks -d @FILE drops, by arithmetic: 9 + 9 + 8 bytes less one CR and three LF.
        XCTAssertEqual(try request(peer, "datafile-wl").bodyLength, 22)
        XCTAssertEqual(try request(peer, "user-wl").values("Authorization").count, 1)
    }

    /// -u's password reaches no output: not the report (any format), not -w, not -v.
    func testUserIsRedactedEverywhere() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let encoded = Data("bob:s3cr3t".utf8).base64EncodedString()
        for format in ["json", "text", "har", "html"] {
            let report = temporaryPath("user.\(format)")
            let outcome = try CLIHarness.run(["probe", "-u", "bob:s3cr3t", "-v", "--include-headers", "--format", format,
                                              "--report", report, "-w", "%{json}\n", peer.url("/record/u-\(format)")])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let written = try String(contentsOfFile: report, encoding: .utf8) + outcome.stdout + outcome.stderr
            XCTAssertFalse(written.contains("s3cr3t"), format)
            XCTAssertFalse(written.contains(encoded), format)
            XCTAssertEqual(try request(peer, "u-\(format)").values("Authorization"), ["Basic \(encoded)"])
        }
    }

    /// -u goes to the task's own origin only, as curl -L -u sends it: a redirect to another port gets none, unless
    /// --location-trusted.
    func testUserStaysWithItsOriginOnRedirect() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1", "127.0.0.1"])
        for trusted in [false, true] {
            let flag = trusted ? ["--location-trusted"] : []
            let tag = trusted ? "trusted" : "plain"
            let byCurl = try curl(["-sS", "-L", "-o", "/dev/null", "-u", "bob:pw"] + flag
                                  + [peer.redirect(to: peer.url("/record/\(tag)-curl", index: 1))])
            XCTAssertEqual(byCurl.status, 0, byCurl.stderr)
            let byUs = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", temporaryPath("t.txt"),
                                           "-u", "bob:pw"] + flag
                                          + [peer.redirect(to: peer.url("/record/\(tag)-wl", index: 1))])
            XCTAssertEqual(byUs.status, 0, byUs.stderr)
            let theirs = try request(peer, "\(tag)-curl").values("Authorization")
            XCTAssertEqual(try request(peer, "\(tag)-wl").values("Authorization"), theirs, tag)
            XCTAssertEqual(theirs.isEmpty, !trusted, "curl's own behaviour, the oracle: \(theirs)")
        }
    }

    /// --resolve and --connect-to reach 127.0.0.1 under made-up names, with the Host curl sends.
    func testResolveAndConnectToAsCurl() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let port = peer.ports[0]
        let cases: [(String, [String], String)] = [
            ("resolve", ["--resolve", "made.up.test:\(port):127.0.0.1"], "http://made.up.test:\(port)/record/"),
            ("connectto", ["--connect-to", "other.test:80:127.0.0.1:\(port)"], "http://other.test/record/"),
        ]
        for (tag, arguments, base) in cases {
            let byCurl = try curl(["-sS", "-o", "/dev/null"] + arguments + [base + "\(tag)-curl"])
            XCTAssertEqual(byCurl.status, 0, byCurl.stderr)
            let byUs = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", temporaryPath("t.txt")]
                                          + arguments + [base + "\(tag)-wl"])
            XCTAssertEqual(byUs.status, 0, byUs.stderr)
            let theirs = try request(peer, "\(tag)-curl")
            let ours = try request(peer, "\(tag)-wl")
            XCTAssertEqual(ours.values("Host"), theirs.values("Host"), tag)
            XCTAssertEqual(ours.listener, theirs.listener, tag)
        }
        try CLIHarness.assertFails(["probe", "--resolve", "a.test:80", "http://a.test/"], code: .usage,
                                   mention: "--resolve 'a.test:80' is not HOST:PORT:ADDRESS")
        try CLIHarness.assertFails(["probe", "--resolve", "a.test:80:not-an-ip", "http://a.test/"], code: .usage,
                                   mention: "'not-an-ip' is not an IP address")
        try CLIHarness.assertFails(["probe", "--connect-to", "a.test:99999::", "http://a.test/"], code: .usage,
                                   mention: "the port '99999' must be a number from 1 to 65535")
    }

    /// -4 and -6 pick the family as curl's do: a name that resolves to both (by --resolve) reaches a server on ::1
    /// only with -6 and one on 127.0.0.1 only with -4.
    func testAddressFamilyAsCurl() throws {
        let peer = try RedirectPeer(listen: ["::1", "127.0.0.1"])
        for (index, server) in ["v6", "v4"].enumerated() {
            let port = peer.ports[index]
            let url = "http://dual.test:\(port)/record/"
            for family in ["-4", "-6"] {
                let resolve = ["--resolve", "dual.test:\(port):127.0.0.1,[::1]", family]
                let byCurl = try curl(["-s", "-o", "/dev/null", "-w", "%{remote_ip}"] + resolve + [url + "\(server)\(family)-curl"])
                let byUs = try CLIHarness.run(["probe", "-s", "-o", "/dev/null", "-w", "%{remote_ip}"] + resolve
                                              + [url + "\(server)\(family)-wl"])
                XCTAssertEqual(byUs.status == 0, byCurl.status == 0, "\(server) \(family): \(byUs.stderr)")
                XCTAssertEqual(byUs.stdout, byCurl.stdout, "\(server) \(family)")
                let reached = (family == "-6") == (server == "v6")
                XCTAssertEqual(byCurl.status == 0, reached, "curl's own behaviour, the oracle")
            }
        }
        try CLIHarness.assertFails(["probe", "-4", "-6", "http://127.0.0.1:9/"], code: .usage,
                                   mention: "give -4/--ipv4 or -6/--ipv6, not both")
    }

    /// --compressed: the body as it came (the server's count of what it wrote, curl's size_download) and as
    /// delivered (the decoded file, byte for byte curl's) are both in the report.
    func testCompressedCountsWireAndDeliveredBytes() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let url = peer.url("/text/200000")
        let theirs = temporaryPath("curl.txt")
        let byCurl = try curl(["-sS", "--compressed", "-o", theirs, "-w", "%{size_download}", url])
        XCTAssertEqual(byCurl.status, 0, byCurl.stderr)
        let ours = temporaryPath("ours.txt")
        let report = temporaryPath("compressed.json")
        let byUs = try CLIHarness.run(["probe", "--compressed", "-o", ours, "--format", "json", "--report", report,
                                       "-w", "%{size_download}", url])
        XCTAssertEqual(byUs.status, 0, byUs.stderr)
        let answers = try peer.textAnswers()
        XCTAssertEqual(answers.count, 2)
        XCTAssertEqual(answers.map(\.encoding), ["gzip", "gzip"])
        let sent = try XCTUnwrap(answers.last?.sentBodyLength)
        XCTAssertEqual(String(sent), byCurl.stdout, "the server's count is curl's size_download")
        XCTAssertEqual(byUs.stdout, byCurl.stdout, "-w size_download as curl's")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: ours)), try Data(contentsOf: URL(fileURLWithPath: theirs)))
        let (tx, _) = try CLIHarness.firstTransaction(ofReport: report)
        XCTAssertEqual(tx["responseBodyWireBytes"] as? Int, sent)
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, 200_000)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        // Without --compressed nothing is asked for and the report has one count.
        let plain = temporaryPath("plain.json")
        XCTAssertEqual(try CLIHarness.run(["probe", "-o", "/dev/null", "--format", "json", "--report", plain, url]).status, 0)
        XCTAssertNil(try CLIHarness.firstTransaction(ofReport: plain).transaction["responseBodyWireBytes"])
        XCTAssertEqual(try peer.textAnswers().last?.encoding, nil)
        // download --compressed checks the length against the encoded Content-Length, and keeps the decoded file.
        let downloaded = temporaryPath("download.txt")
        let download = try CLIHarness.run(["download", "--compressed", url, "-o", downloaded])
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertTrue(download.stderr.contains("200000 bytes decoded from \(sent), length checked"), download.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: downloaded)), try Data(contentsOf: URL(fileURLWithPath: theirs)))
    }

    /// -m/--max-time expiring is a timeout: exit 8, where curl's is its own 28.
    func testMaxTimeExpiresWithTimeoutExit() throws {
        let servers = try TestServers.get()
        let url = servers.http("/slow/1m.bin")  // ~2 s at nginx's 512 KiB/s
        let byCurl = try curl(["-sS", "-o", "/dev/null", "-m", "0.5", url])
        XCTAssertEqual(byCurl.status, 28, "curl's operation timeout: \(byCurl.stderr)")
        let byUs = try CLIHarness.run(["probe", "-o", "/dev/null", "-m", "0.5", "-q", url])
        XCTAssertEqual(byUs.status, ExitStatus.timeout.rawValue, byUs.stderr)
        XCTAssertTrue(byUs.stderr.contains("total timeout"), byUs.stderr)
    }

    /// A -m value refused is named with the spellings the user may have typed (-m, --max-time or --timeout), not
    /// only one of them; 0 is refused like every duration, where curl's -m 0 is no limit (the README says so).
    func testMaxTimeRefusalNamesItsSpellings() throws {
        let servers = try TestServers.get()
        let byCurl = try curl(["-sS", "-o", "/dev/null", "-m", "0", servers.http("/small.txt")])
        XCTAssertEqual(byCurl.status, 0, "curl -m 0: no limit: \(byCurl.stderr)")
        for spelling in ["-m", "--max-time", "--timeout"] {
            try CLIHarness.assertFails(["probe", spelling, "0", "http://127.0.0.1:9/"], code: .usage,
                                       mention: "-m/--max-time/--timeout '0' must be greater than 0")
        }
        try CLIHarness.assertFails(["probe", "-m", "soon", "http://127.0.0.1:9/"], code: .usage,
                                   mention: "-m/--max-time/--timeout 'soon' is not a duration")
    }

    /// -v writes libcurl's verbose text as curl -v does (the request line, "> " headers, "< " answer) with every
    /// secret masked, where curl itself prints them.
    func testVerboseShowsTheExchangeButNoSecret() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let secret = ["-u", "bob:s3cr3t", "-H", "Cookie: sid=cookie-value-1"]
        let url = peer.url("/record/verbose?token=token-value-2")
        let byCurl = try curl(["-sS", "-v", "-o", "/dev/null"] + secret + [url])
        let encoded = Data("bob:s3cr3t".utf8).base64EncodedString()
        XCTAssertTrue(byCurl.stderr.contains(encoded), "curl -v prints the credentials: the test's premise")
        let byUs = try CLIHarness.run(["probe", "-v", "-q", "-o", "/dev/null", "--report", temporaryPath("v.txt")]
                                      + secret + [url])
        XCTAssertEqual(byUs.status, 0, byUs.stderr)
        for line in ["> GET /record/verbose?token=[REDACTED] HTTP/1.1", "> Authorization: [REDACTED]",
                     "> Cookie: [REDACTED]", "< HTTP/1.1 200 OK", "* Connected to 127.0.0.1"] {
            XCTAssertTrue(byUs.stderr.contains(line), "'\(line)' not in:\n\(byUs.stderr)")
        }
        for value in [encoded, "s3cr3t", "cookie-value-1", "token-value-2"] {
            XCTAssertFalse(byUs.stderr.contains(value), "\(value) in:\n\(byUs.stderr)")
        }
        // HTTP/2 over TLS: libcurl names the request's headers in its own text ("h2h3 [:path: ...]").
        let servers = try TestServers.get()
        let h2 = servers.https("/small.txt?token=token-value-3")
        let h2Curl = try curl(["-sS", "-v", "-k", "--http2", "-o", "/dev/null", "-u", "bob:s3cr3t", h2])
        XCTAssertTrue(h2Curl.stderr.contains("token-value-3") && h2Curl.stderr.contains(encoded), "curl -v's premise")
        let h2Ours = try CLIHarness.run(["probe", "-v", "-k", "--http2", "-q", "-o", "/dev/null", "-u", "bob:s3cr3t",
                                         "--report", temporaryPath("h2.txt"), h2])
        XCTAssertEqual(h2Ours.status, 0, h2Ours.stderr)
        XCTAssertTrue(h2Ours.stderr.contains("> GET /small.txt?token=[REDACTED] HTTP/2"), h2Ours.stderr)
        for value in [encoded, "s3cr3t", "token-value-3"] {
            XCTAssertFalse(h2Ours.stderr.contains(value), "\(value) in:\n\(h2Ours.stderr)")
        }
        // Without -v, no verbose line.
        let quiet = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", temporaryPath("q.txt"), url])
        XCTAssertFalse(quiet.stderr.contains("> GET"), quiet.stderr)
    }

    /// -s writes nothing on stderr, -sS only the error line, as curl's.
    func testSilentAndShowError() throws {
        let url = "http://127.0.0.1:9/"
        for flags in [["-s"], ["-sS"], ["-s", "-S"]] {
            let byCurl = try curl(flags + ["-o", "/dev/null", url])
            let byUs = try CLIHarness.run(["probe"] + flags + ["--report", temporaryPath("s.txt"), url])
            XCTAssertEqual(byUs.status, ExitStatus.connect.rawValue, byUs.stderr)
            let curlLines = byCurl.stderr.split(separator: "\n").count
            let ourLines = byUs.stderr.split(separator: "\n")
            XCTAssertEqual(ourLines.count, curlLines, "\(flags): \(byUs.stderr)")
            if let line = ourLines.first { XCTAssertTrue(line.contains("Failed to connect"), String(line)) }
        }
        // A usage mistake is written even with -s, as curl's.
        try CLIHarness.assertFails(["probe", "-s", "--max-redirs=-1", url], code: .usage, mention: "--max-redirs")
    }

    /// -L is accepted (redirects are followed anyway) and --no-location answers with the redirect, as curl without -L.
    func testLocationSpellings() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let url = peer.redirect(to: peer.url("/record/target"))
        for (ours, theirs) in [(["-L"], ["-L"]), (["--no-location"], [String]())] {
            let byCurl = try curl(["-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}"] + theirs + [url])
            let byUs = try CLIHarness.run(["probe", "-s", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}"]
                                          + ours + [url])
            XCTAssertEqual(byUs.status, 0, byUs.stderr)
            XCTAssertEqual(byUs.stdout, byCurl.stdout, "\(ours)")
        }
        try CLIHarness.assertFails(["probe", "-L", "--no-location", url], code: .usage,
                                   mention: "give -L/--location or --no-location, not both")
    }

    /// --retry as curl's (--retries, the older spelling, still works and is hidden from the help): a 503 is asked
    /// again once.
    func testRetrySpellings() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        // Into a file: curl truncates it before a retry, which /dev/null refuses (curl then exits 23, asking once).
        let byCurl = try curl(["-s", "-o", temporaryPath("retry.out"), "--retry", "1",
                               peer.url("/record/retry-curl?status=503")])
        XCTAssertEqual(byCurl.status, 0, "curl without -f: a 503 is no error")
        let curlCount = try peer.records().filter { $0.path == "/record/retry-curl?status=503" }.count
        XCTAssertEqual(curlCount, 2)
        for spelling in ["--retry", "--retries"] {
            let tag = "retry\(spelling.count)"
            let outcome = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", temporaryPath("r.txt"),
                                              spelling, "1", "--retry-max-wait", "10ms",
                                              peer.url("/record/\(tag)?status=503")])
            XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, outcome.stderr)
            XCTAssertEqual(try peer.records().filter { $0.path == "/record/\(tag)?status=503" }.count, curlCount, spelling)
        }
        let help = try CLIHarness.run(["probe", "--help"]).stdout
        XCTAssertTrue(help.contains("--retry <retry>"), help)
        XCTAssertFalse(help.contains("--retries"), help)
        try CLIHarness.assertFails(["probe", "--retry", "1", "--retries", "1", "http://127.0.0.1:9/"], code: .usage,
                                   mention: "give --retry once")
        try CLIHarness.assertFails(["probe", "--retry-max-time", "0", "http://127.0.0.1:9/"], code: .usage,
                                   mention: "--retry-max-time '0' must be greater than 0")
    }
}
