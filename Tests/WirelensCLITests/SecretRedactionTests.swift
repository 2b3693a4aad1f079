import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// No secret a URL carries reaches an output byte: slowpeer's `/presigned-redirect` answers a 302 whose Location,
/// Content-Location, Link and Refresh carry presigned URLs with user info; the probe follows it and writes every
/// report format with `--include-headers`. The oracle is a byte search of the files and streams for the marker
/// every secret value contains ("SeKrit", any case), not Wirelens' own redactor.
final class SecretRedactionTests: XCTestCase {
    private static let marker = "sekrit"

    /// Every output byte of a run: its stdout, stderr and report file.
    private func outputs(_ arguments: [String], report: String, expect code: ExitStatus,
                         file: StaticString = #filePath, line: UInt = #line) throws -> String {
        defer { unlink(report) }
        let outcome = try CLIHarness.run(arguments + ["--report", report], timeout: 60)
        XCTAssertEqual(outcome.status, code.rawValue, outcome.stderr, file: file, line: line)
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: report))) ?? Data()
        XCTAssertFalse(bytes.isEmpty, "no report written", file: file, line: line)
        return outcome.stdout + "\n" + outcome.stderr + "\n" + String(decoding: bytes, as: UTF8.self)
    }

    private func assertNoSecret(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let lower = text.lowercased()
        var leaks: [String] = []
        var rest = lower[...]
        while let hit = rest.range(of: Self.marker), leaks.count < 20 {
            let start = lower.index(hit.lowerBound, offsetBy: -30, limitedBy: lower.startIndex) ?? lower.startIndex
            let end = lower.index(hit.upperBound, offsetBy: 30, limitedBy: lower.endIndex) ?? lower.endIndex
            leaks.append(String(lower[start..<end]))
            rest = lower[hit.upperBound...]
        }
        XCTAssertEqual(leaks, [], "\(what) leaks secrets", file: file, line: line)
    }

    /// The request URL has user info and secret query values of its own; the 302's headers and the hop's URL
    /// carry more. JSON, HAR, text and HTML (reports, stdout, stderr) hold none of them, and still show the
    /// harmless parts.
    func testPresignedURLsInRedirectHeadersNeverReachAReport() throws {
        let servers = try TestServers.get()
        let url = "http://SeKrit-req-user:SeKrit-req-pass@127.0.0.1:\(servers.peerPort)/presigned-redirect"
            + "?access_token=SeKrit-req-token&Code=SeKrit-req-code&PWD=SeKrit-req-pwd&sig=SeKrit-req-sig&keep=visible-request"
        for format in ["json", "har", "text", "html"] {
            let text = try outputs(["probe", "--include-headers", "--format", format, url],
                                   report: CLIHarness.temporaryPath("presigned.\(format)"), expect: .success)
            assertNoSecret(text, format)
            XCTAssertTrue(text.contains("keep=visible-request"), "\(format): the request URL's harmless part")
            XCTAssertTrue(text.contains("keep=visible-location"), "\(format): the hop's URL")
            XCTAssertTrue(text.contains("X-Amz-Algorithm=AWS4-HMAC-SHA256"), "\(format): a harmless parameter")
            if format == "json" || format == "har" {
                for kept in ["visible-content", "visible-link", "visible-refresh", "cdn.example.invalid",
                             "X-Amz-Signature=", "rel=\\\"next\\\"", "</b?sig="] {
                    XCTAssertTrue(text.contains(kept), "\(format) lacks '\(kept)'")
                }
            }
        }
    }

    /// A report saved by a version that let secrets through (made here from a real report, every mask replaced
    /// by a secret) is redacted when `wirelens render` reads it, in every format.
    func testRenderingAnOlderReportRedactsIt() throws {
        let servers = try TestServers.get()
        let saved = CLIHarness.temporaryPath("saved.json")
        defer { unlink(saved) }
        let url = "http://SeKrit-req-user:SeKrit-req-pass@127.0.0.1:\(servers.peerPort)/presigned-redirect?access_token=t&keep=visible-request"
        let probe = try CLIHarness.run(["probe", "--include-headers", "--format", "json", "--report", saved, "-q",
                                        "-H", "Authorization: Bearer x", url])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let text = try String(contentsOfFile: saved, encoding: .utf8)
        XCTAssertTrue(text.contains(Redactor.mask))
        try text.replacingOccurrences(of: Redactor.mask, with: "SeKrit-old").write(toFile: saved, atomically: true, encoding: .utf8)
        for format in ["json", "har", "text", "html"] {
            let outcome = try CLIHarness.run(["render", saved, "--format", format])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            assertNoSecret(outcome.stdout + outcome.stderr, "render --format \(format)")
            XCTAssertTrue(outcome.stdout.contains("keep=visible-request"), format)
        }
    }

    /// HAR's `redirectURL` is the redacted Location, with its harmless parts.
    func testHARRedirectURLIsTheRedactedLocation() throws {
        let servers = try TestServers.get()
        let report = CLIHarness.temporaryPath("redirect.har")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", "--include-headers", "--format", "har", "--report", report, "-q",
                                          servers.peer("/presigned-redirect")])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        let entries = try XCTUnwrap((json?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2, "the 302 and the hop")
        let redirect = try XCTUnwrap((entries.first?["response"] as? [String: Any])?["redirectURL"] as? String)
        XCTAssertTrue(redirect.hasPrefix("http://"), redirect)
        XCTAssertTrue(redirect.contains("@127.0.0.1:\(servers.peerPort)/status/200?"), redirect)
        XCTAssertTrue(redirect.hasSuffix("&keep=visible-location"), redirect)
        XCTAssertFalse(redirect.lowercased().contains(Self.marker), redirect)
    }

    /// Error messages that carry a URL: a redirect to a scheme Wirelens refuses (the hop's URL is in the
    /// message), and a command-line URL libcurl's parser rejects.
    func testErrorMessagesCarryingTheURLAreRedacted() throws {
        let servers = try TestServers.get()
        for format in ["json", "text"] {
            let text = try outputs(["probe", "--include-headers", "--format", format, servers.peer("/presigned-redirect/ftp")],
                                   report: CLIHarness.temporaryPath("ftp.\(format)"), expect: .transfer)
            assertNoSecret(text, "ftp hop, \(format)")
            XCTAssertTrue(text.contains("ftp://"), text)
            XCTAssertTrue(text.contains("keep=visible-ftp"), text)
        }
        // libcurl's own error text names the proxy URL it refused, credentials included.
        let proxied = try outputs(["probe", "--format", "json", "--proxy", "foo://SeKrit-proxy-user:SeKrit-proxy-pass@127.0.0.1:1",
                                   servers.target("/status/200")], report: CLIHarness.temporaryPath("proxy.json"), expect: .connect)
        assertNoSecret(proxied, "libcurl's proxy error")
        XCTAssertTrue(proxied.contains("Unsupported proxy scheme for 'foo://\(Redactor.mask)@127.0.0.1:1'"), proxied)
        let bad = "http://SeKrit-user:SeKrit-pass@127.0.0.1:99999/x?token=SeKrit-token&keep=visible-bad"
        let outcome = try CLIHarness.run(["probe", bad])
        XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, outcome.stderr)
        assertNoSecret(outcome.stdout + outcome.stderr, "malformed URL error")
        XCTAssertTrue(outcome.stderr.contains("keep=visible-bad"), outcome.stderr)
    }
}
