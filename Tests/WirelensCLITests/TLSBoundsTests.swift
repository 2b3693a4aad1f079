import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--tlsv1.2`, `--tlsv1.3` and `--tls-max` (issue 31 item 3) against nginx forced to a version range, each held to
/// curl with the same flags on the same server: the version nginx logged (`$ssl_protocol`) for curl's request and
/// Wirelens', the version the report names, and how a handshake with no common version fails.
final class TLSBoundsTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A 1.2-and-1.3 server (index 0) and a 1.2-only one (index 1).
    private func servers() throws -> OwnNginx {
        try OwnNginx([OwnNginx.Server(tls: true, directives: "ssl_protocols TLSv1.2 TLSv1.3;"),
                      OwnNginx.Server(tls: true, directives: "ssl_protocols TLSv1.2;")])
    }

    private func curl(_ nginx: OwnNginx, _ arguments: [String], _ url: String) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "-o", "/dev/null", "--cacert", nginx.certPath,
                                               "--resolve", resolve(url)] + arguments + [url], timeout: 30)
    }

    /// Runs `wirelens probe` with a JSON report; its outcome and the report's first transaction.
    private func probe(_ nginx: OwnNginx, _ arguments: [String], _ url: String) throws
        -> (outcome: ProcessRunner.Outcome, transaction: [String: Any]) {
        let report = CLIHarness.temporaryPath("tls.json")
        paths.append(report)
        let outcome = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--cacert", nginx.certPath,
                                          "--resolve", resolve(url), "--format", "json", "--report", report]
                                         + arguments + [url])
        return (outcome, try CLIHarness.firstTransaction(ofReport: report).transaction)
    }

    /// `localhost:PORT:127.0.0.1` for the URL's port: nginx listens on 127.0.0.1 only.
    private func resolve(_ url: String) -> String {
        "localhost:\(URLComponents(string: url)?.port ?? 0):127.0.0.1"
    }

    /// `--tls-max 1.2` against a server that speaks 1.3 settles on 1.2, as curl's does; without it both get 1.3.
    func testMaximumBelowTheServersBest() throws {
        let nginx = try servers()
        for (tag, arguments, expected) in [("max12", ["--tls-max", "1.2"], "TLSv1.2"), ("free", [], "TLSv1.3"),
                                           ("max13", ["--tls-max", "1.3"], "TLSv1.3")] {
            let byCurl = try curl(nginx, arguments, nginx.url(0, "/small.txt?\(tag)-curl", tls: true))
            XCTAssertEqual(byCurl.status, 0, byCurl.stderr)
            let (outcome, tx) = try probe(nginx, arguments, nginx.url(0, "/small.txt?\(tag)-wl", tls: true))
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            let theirs = nginx.logged("/small.txt?\(tag)-curl").map(\.tlsProtocol)
            let ours = nginx.logged("/small.txt?\(tag)-wl").map(\.tlsProtocol)
            XCTAssertEqual(theirs, [expected], tag)
            XCTAssertEqual(ours, theirs, tag)
            XCTAssertEqual(tx["tlsVersion"] as? String, ours.first, tag)
        }
    }

    /// `--tlsv1.3` against a 1.2-only server fails the handshake as curl's does: the report's CURLcode is curl's
    /// exit code (35, SSL_CONNECT_ERROR), its class tls, and the exit code Wirelens' for TLS; `--tlsv1.2` passes, and
    /// of the two the last one given counts, as in curl.
    func testMinimumAboveTheServersBest() throws {
        let nginx = try servers()
        let url = nginx.url(1, "/small.txt", tls: true)
        let byCurl = try curl(nginx, ["--tlsv1.3"], url)
        XCTAssertNotEqual(byCurl.status, 0)
        let (failed, tx) = try probe(nginx, ["--tlsv1.3"], url)
        XCTAssertEqual(failed.status, ExitStatus.tls.rawValue, failed.stderr)
        let error = try XCTUnwrap(tx["error"] as? [String: Any], "\(tx)")
        XCTAssertEqual(error["class"] as? String, "tls")
        XCTAssertEqual(error["curlCode"] as? Int, Int(byCurl.status))
        XCTAssertEqual(failed.stderr.split(separator: "\n").count, 1, failed.stderr)

        for (tag, arguments) in [("min12", ["--tlsv1.2"]), ("last12", ["--tlsv1.3", "--tlsv1.2"])] {
            let byCurl = try curl(nginx, arguments, nginx.url(1, "/small.txt?\(tag)-curl", tls: true))
            XCTAssertEqual(byCurl.status, 0, "\(tag): \(byCurl.stderr)")
            let (outcome, tx) = try probe(nginx, arguments, nginx.url(1, "/small.txt?\(tag)-wl", tls: true))
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            XCTAssertEqual(nginx.logged("/small.txt?\(tag)-wl").map(\.tlsProtocol),
                           nginx.logged("/small.txt?\(tag)-curl").map(\.tlsProtocol), tag)
            XCTAssertEqual(tx["tlsVersion"] as? String, "TLSv1.2", tag)
        }
    }

    /// A version that is not one, or a maximum below the minimum, is one line naming --tls-max and exit 2, before any
    /// connection (the server logs nothing).
    func testBadBounds() throws {
        let nginx = try servers()
        let url = nginx.url(0, "/small.txt?bad", tls: true)
        for value in ["1.4", "tls1.2", "", "1"] {
            try CLIHarness.assertFails(["probe", "--tls-max", value, url], code: .usage, mention: "--tls-max")
        }
        try CLIHarness.assertFails(["probe", "--tlsv1.3", "--tls-max", "1.2", url], code: .usage, mention: "--tls-max")
        try CLIHarness.assertFails(["download", "--tls-max", "2", url, "-o", "/dev/null"], code: .usage, mention: "--tls-max")
        XCTAssertEqual(nginx.logged("/small.txt?bad"), [])
    }
}
