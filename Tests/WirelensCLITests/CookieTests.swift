import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `-b/--cookie` and `-c/--cookie-jar` (issue 31 item 4) held to curl and to what nginx logged (`$http_cookie`): the
/// cookies sent, a cookie set by a redirect's first hop sent to the second, jars written and read both ways, and no
/// cookie value in any report or in `-v`'s text. nginx's `/login?who=W` sets `sid` and redirects to
/// `/small.txt?after-W`.
final class CookieTests: XCTestCase {
    private static let session = "SeKritSession42"
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    private func nginx() throws -> OwnNginx {
        try OwnNginx([OwnNginx.Server(tls: false, directives: """
            location = /login { add_header Set-Cookie "sid=\(Self.session); Path=/"; return 302 /small.txt?after-$arg_who; }
            """)])
    }

    private func path(_ name: String) -> String {
        let path = CLIHarness.temporaryPath(name)
        paths.append(path)
        return path
    }

    private func curl(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "-o", "/dev/null"] + arguments, timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome
    }

    /// Runs `wirelens probe` with a JSON report; the report's text.
    @discardableResult
    private func probe(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let report = path("cookies.json")
        // One URL's body goes nowhere; a run of several has no -o.
        let output = arguments.filter { $0.hasPrefix("http://") }.count == 1 ? ["-o", "/dev/null"] : []
        let outcome = try CLIHarness.run(["probe", "-q", "--format", "json", "--report", report] + output + arguments)
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        return (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    }

    /// The Cookie header nginx logged for `uri` (one request expected).
    private func cookie(_ server: OwnNginx, _ uri: String) -> String? {
        let lines = server.logged(uri)
        XCTAssertEqual(lines.count, 1, "\(uri): \(lines)")
        return lines.first?.cookie
    }

    /// `-b 'a=1; b=2'` is the request's Cookie header, as curl's; the report shows a Cookie header, masked.
    func testCookieDataIsTheCookieHeaderAndIsRedacted() throws {
        let server = try nginx()
        try curl(["-b", "a=1; b=2", server.url(0, "/small.txt?data-curl", tls: false)])
        let report = try probe(["-b", "a=1; b=2", server.url(0, "/small.txt?data-wl", tls: false)])
        XCTAssertEqual(cookie(server, "/small.txt?data-curl"), "a=1; b=2")
        XCTAssertEqual(cookie(server, "/small.txt?data-wl"), "a=1; b=2")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        let options = (json["configuration"] as? [String: Any])?["options"] as? [String: Any]
        let headers = try XCTUnwrap(options?["headers"] as? [[String: Any]], report)
        XCTAssertTrue(headers.contains { $0["name"] as? String == "Cookie" && $0["value"] as? String == "[REDACTED]" },
                      "\(headers)")
        XCTAssertFalse(report.contains("b=2"), report)
    }

    /// A cookie the first hop sets goes to the second (a login then a fetch), as with curl -L -b '': nginx logged
    /// it for the hop; without -b/-c there is no cookie engine and the hop has none, as curl's. A run of two URLs
    /// shares the engine: the second URL gets the first's cookie.
    func testARedirectCarriesTheCookieItsFirstHopSet() throws {
        let server = try nginx()
        try curl(["-L", "-b", "", server.url(0, "/login?who=curl", tls: false)])
        try probe(["-b", "", server.url(0, "/login?who=wl", tls: false)])
        try probe([server.url(0, "/login?who=plain", tls: false)])
        try probe(["-b", "", server.url(0, "/login?who=multi", tls: false), server.url(0, "/small.txt?second", tls: false)])
        XCTAssertEqual(cookie(server, "/small.txt?after-curl"), "sid=\(Self.session)")
        XCTAssertEqual(cookie(server, "/small.txt?after-wl"), "sid=\(Self.session)")
        XCTAssertEqual(cookie(server, "/small.txt?after-plain"), "-")
        XCTAssertEqual(cookie(server, "/small.txt?second"), "sid=\(Self.session)")
    }

    /// `-c` writes the jar curl -c writes for the same flow, byte for byte, mode 0600; curl -b sends what it holds,
    /// and `wirelens -b` sends what curl's jar holds.
    func testJarsGoBothWaysWithCurl() throws {
        let server = try nginx()
        let ours = path("ours.jar")
        let theirs = path("theirs.jar")
        try probe(["-c", ours, server.url(0, "/login?who=jar-wl", tls: false)])
        try curl(["-L", "-c", theirs, server.url(0, "/login?who=jar-curl", tls: false)])
        let written = try String(contentsOfFile: ours, encoding: .utf8)
        XCTAssertTrue(written.hasPrefix("# Netscape HTTP Cookie File"), written)
        XCTAssertTrue(written.contains("\tsid\t\(Self.session)"), written)
        XCTAssertEqual(written, try String(contentsOfFile: theirs, encoding: .utf8))
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: ours)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        try curl(["-b", ours, server.url(0, "/small.txt?curl-reads-ours", tls: false)])
        try probe(["-b", theirs, server.url(0, "/small.txt?wl-reads-curls", tls: false)])
        XCTAssertEqual(cookie(server, "/small.txt?curl-reads-ours"), "sid=\(Self.session)")
        XCTAssertEqual(cookie(server, "/small.txt?wl-reads-curls"), "sid=\(Self.session)")
        // Raw Set-Cookie lines are a cookie file too, as curl reads them.
        let raw = path("raw.txt")
        try "Set-Cookie: raw=\(Self.session)x; Path=/; Domain=127.0.0.1\n".write(toFile: raw, atomically: true, encoding: .utf8)
        try probe(["-b", raw, server.url(0, "/small.txt?raw-lines", tls: false)])
        XCTAssertEqual(cookie(server, "/small.txt?raw-lines"), "raw=\(Self.session)x")
    }

    /// download and compare take the flags too: -b's text reaches nginx on every request, and compare's runs carry
    /// the login hop's cookie to its redirect.
    func testDownloadAndCompareSendCookies() throws {
        let server = try nginx()
        let out = path("download.txt")
        let download = try CLIHarness.run(["download", "-q", "-b", "d=1", "-o", out,
                                           server.url(0, "/small.txt?download", tls: false)])
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertEqual(cookie(server, "/small.txt?download"), "d=1")
        let report = path("compare.json")
        let compare = try CLIHarness.run(["compare", "-q", "-b", "", "--limits", "1", "--repeat", "1",
                                          "--workload", "requests:2", "--format", "json", "--report", report,
                                          server.url(0, "/login?who=compare", tls: false)])
        XCTAssertEqual(compare.status, 0, compare.stderr)
        let hops = server.logged("/small.txt?after-compare").map(\.cookie)
        XCTAssertFalse(hops.isEmpty)
        XCTAssertEqual(Set(hops), ["sid=\(Self.session)"])
    }

    /// A -b file that cannot be read and a -c jar in a missing directory are one line naming them, exit 3, before
    /// any request (curl ignores the first and finds out about the second after the run).
    func testUnreadableFilesFailBeforeTheRun() throws {
        let server = try nginx()
        let url = server.url(0, "/small.txt?refused", tls: false)
        let missing = "/nonexistent-\(getpid())/cookies.txt"
        try CLIHarness.assertFails(["probe", "-b", missing, url], code: .localFile, mention: missing)
        try CLIHarness.assertFails(["probe", "-c", missing, url], code: .localFile, mention: missing)
        try CLIHarness.assertFails(["probe", "-c", "-", url], code: .usage, mention: "-c")
        try CLIHarness.assertFails(["probe", "-b", "a=1\r\nX-Evil: 1", url], code: .usage, mention: "-b")
        XCTAssertEqual(server.logged("/small.txt?refused"), [])
    }

    /// A check with `cookies: true` carries the login hop's cookie to the redirect, run after run (each run starts
    /// empty, so the first hop of the second run has none); a check without it has no engine.
    func testACheckWithCookiesCarriesThemWithinItsRun() throws {
        let server = try nginx()
        let config = path("cookies.yaml")
        try """
            checks:
              - name: login
                url: \(server.url(0, "/login?who=check", tls: false))
                cookies: true
              - name: plain
                url: \(server.url(0, "/login?who=check-plain", tls: false))
            """.write(toFile: config, atomically: true, encoding: .utf8)
        for _ in 0..<2 {
            let outcome = try CLIHarness.run(["check", config, "--no-history"])
            XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        }
        XCTAssertEqual(server.logged("/small.txt?after-check").map(\.cookie), Array(repeating: "sid=\(Self.session)", count: 2))
        XCTAssertEqual(server.logged("/small.txt?after-check-plain").map(\.cookie), ["-", "-"])
        XCTAssertEqual(server.logged("/login?who=check").map(\.cookie), ["-", "-"])
    }

    /// No cookie value (every one holds "SeKrit") reaches a JSON, HAR, text or HTML report, stdout, or -v's stderr:
    /// not the -b data, not the Set-Cookie of the first hop, not the cookie the engine sends the second.
    func testNoCookieValueReachesAnyOutput() throws {
        let server = try nginx()
        for format in ["json", "har", "text", "html"] {
            let report = path("secret.\(format)")
            let jar = path("secret-\(format).jar")
            let outcome = try CLIHarness.run(["probe", "-v", "--include-headers", "-o", "/dev/null", "--format", format,
                                              "--report", report, "-b", "tok=SeKritData1", "-c", jar,
                                              server.url(0, "/login?who=\(format)", tls: false)])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertEqual(cookie(server, "/small.txt?after-\(format)"), "sid=\(Self.session); tok=SeKritData1")
            XCTAssertTrue(outcome.stderr.contains("Set-Cookie: [REDACTED]"), outcome.stderr)
            let text = outcome.stdout + outcome.stderr + ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "")
            XCTAssertFalse(text.lowercased().contains("sekrit"), "\(format): \(text)")
            XCTAssertTrue(try String(contentsOfFile: jar, encoding: .utf8).contains(Self.session), format)
        }
    }
}
