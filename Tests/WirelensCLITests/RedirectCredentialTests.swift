import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Credentials and redirects: a hop to another origin (scheme, host or port) gets none of the secret headers and
/// no URL user info, as `curl -L` sends none of Authorization and Cookie; `--location-trusted` (a check's
/// `trusted_redirects: true`) sends them, as curl's does; a hop to the same origin keeps them.
///
/// The witness is scripts/redirect-peer.py, which records the headers each hop brought; curl on the same
/// listeners is the oracle for Authorization, Cookie and user info.
final class RedirectCredentialTests: XCTestCase {
    /// The secret headers every run sends: two curl strips itself, one only the redactor knows to be secret.
    static let secretHeaders = ["Authorization: Bearer tok-abc", "Cookie: s=cookie-xyz", "X-Api-Token: api-123"]
    /// A harmless header, which every hop keeps.
    static let plainHeader = "X-Trace: trace-1"
    static let secretNames: Set<String> = ["authorization", "cookie", "x-api-token"]

    /// Listeners: 0 and 1 on 127.0.0.1 (two ports), 2 on ::1.
    private func peer() throws -> RedirectPeer {
        try RedirectPeer(listen: ["127.0.0.1", "127.0.0.1", "::1"])
    }

    private var headerArguments: [String] {
        (Self.secretHeaders + [Self.plainHeader]).flatMap { ["-H", $0] }
    }

    /// The cross-origin targets of a hop from listener 0 on 127.0.0.1: another host name and port, IPv6, only the
    /// port, only the host's name (same port).
    private func crossOriginTargets(_ peer: RedirectPeer) -> [(tag: String, url: String)] {
        [("localhost", "http://localhost:\(peer.ports[1])/record/localhost"),
         ("ipv6", "http://[::1]:\(peer.ports[2])/record/ipv6"),
         ("port", "http://127.0.0.1:\(peer.ports[1])/record/port"),
         ("hostname", "http://localhost:\(peer.ports[0])/record/hostname")]
    }

    /// The one record of `tag`, failing the test when there is not exactly one.
    private func record(_ peer: RedirectPeer, _ tag: String, file: StaticString = #filePath,
                        line: UInt = #line) throws -> RedirectPeer.Record {
        let found = try peer.records(tag: tag)
        XCTAssertEqual(found.count, 1, "one request reached /record/\(tag): \(found)", file: file, line: line)
        return try XCTUnwrap(found.first, file: file, line: line)
    }

    /// Runs curl (the oracle), with the same headers unless told otherwise, bounded.
    private func curl(_ arguments: [String], headers: Bool = true) throws {
        let outcome = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "--max-time", "20"]
                                            + (headers ? headerArguments : []) + arguments, timeout: 30)
        XCTAssertEqual(outcome.status, 0, "curl: \(outcome.stderr)")
    }

    func testProbeSendsNoSecretToAnotherOrigin() throws {
        let peer = try peer()
        for (tag, target) in crossOriginTargets(peer) {
            let outcome = try CLIHarness.run(["probe", peer.redirect(to: target), "-q"] + headerArguments)
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            let hop = try record(peer, tag)
            XCTAssertTrue(hop.names.isDisjoint(with: Self.secretNames), "\(tag): the hop got \(hop.headers ?? [])")
            XCTAssertEqual(hop.values("X-Trace"), ["trace-1"], "\(tag): harmless headers go on")

            try curl(["-L", peer.redirect(to: target.replacingOccurrences(of: "/record/", with: "/record/curl-"))])
            let oracle = try record(peer, "curl-\(tag)")
            XCTAssertEqual(oracle.names.intersection(["authorization", "cookie"]),
                           hop.names.intersection(["authorization", "cookie"]), "\(tag): as curl -L")
        }
    }

    func testUserInfoNeverReachesAnotherOrigin() throws {
        let peer = try peer()
        let other = "http://localhost:\(peer.ports[1])/record"
        // The task's own user info, and user info the Location itself carries: neither reaches B as Basic auth.
        let own = { (tag: String) in "http://user:pass@127.0.0.1:\(peer.ports[0])/redirect?to=\(other)/\(tag)" }
        let carried = { (tag: String) in peer.redirect(to: "http://lu:lp@localhost:\(peer.ports[1])/record/\(tag)") }
        for (tag, url) in [("own", own), ("carried", carried)] {
            let outcome = try CLIHarness.run(["probe", url(tag), "-q"])
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            XCTAssertEqual(try record(peer, tag).values("Authorization"), [], "\(tag): no Basic auth to B")
            try curl(["-L", url("curl-\(tag)")], headers: false)
            XCTAssertEqual(try record(peer, "curl-\(tag)").values("Authorization"), [], "\(tag): curl -L sends none")
        }
    }

    func testSameOriginHopsKeepCredentials() throws {
        let peer = try peer()
        let a = peer.ports[0]
        // A relative Location, an absolute one with the scheme and host in capitals, and the task's user info.
        let relative = peer.redirect(to: "/record/relative")
        let absolute = peer.redirect(to: "HTTP://127.0.0.1:\(a)/record/absolute")
        for (tag, url) in [("relative", relative), ("absolute", absolute)] {
            let outcome = try CLIHarness.run(["probe", url, "-q"] + headerArguments)
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            let hop = try record(peer, tag)
            XCTAssertEqual(hop.values("Authorization"), ["Bearer tok-abc"], tag)
            XCTAssertEqual(hop.values("Cookie"), ["s=cookie-xyz"], tag)
            XCTAssertEqual(hop.values("X-Api-Token"), ["api-123"], tag)
        }
        let withUser = "http://user:pass@127.0.0.1:\(a)/redirect?to=http://127.0.0.1:\(a)/record/user"
        XCTAssertEqual(try CLIHarness.run(["probe", withUser, "-q"]).status, 0)
        try curl(["-L", withUser.replacingOccurrences(of: "/record/user", with: "/record/curl-user")], headers: false)
        let oracle = try record(peer, "curl-user").values("Authorization")
        XCTAssertEqual(oracle, ["Basic dXNlcjpwYXNz"], "curl -L carries user:pass to the same origin")
        XCTAssertEqual(try record(peer, "user").values("Authorization"), oracle, "as curl -L")
    }

    func testLocationTrustedSendsThemLikeCurl() throws {
        let peer = try peer()
        let target = "http://localhost:\(peer.ports[1])/record/trusted"
        let outcome = try CLIHarness.run(["probe", peer.redirect(to: target), "-q", "--location-trusted"] + headerArguments)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let hop = try record(peer, "trusted")
        try curl(["-L", "--location-trusted", peer.redirect(to: target + "-curl")])
        let oracle = try record(peer, "trusted-curl")
        for name in ["Authorization", "Cookie", "X-Api-Token"] {
            XCTAssertEqual(hop.values(name), oracle.values(name), "\(name) as curl --location-trusted")
            XCTAssertEqual(hop.values(name).count, 1, "\(name) reached B")
        }
    }

    func testDownloadAndUploadSendNoSecretToAnotherOrigin() throws {
        let peer = try peer()
        let output = CLIHarness.temporaryPath("download.bin")
        let body = CLIHarness.temporaryPath("upload.bin")
        defer {
            unlink(output)
            unlink(body)
        }
        let download = try CLIHarness.run(["download", peer.redirect(to: "http://localhost:\(peer.ports[1])/record/download"),
                                           "-o", output, "-q"] + headerArguments)
        XCTAssertEqual(download.status, 0, download.stderr)
        let got = try record(peer, "download")
        XCTAssertTrue(got.names.isDisjoint(with: Self.secretNames), "download hop got \(got.headers ?? [])")
        XCTAssertEqual(got.values("X-Trace"), ["trace-1"])

        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: body))
        let part = "http://127.0.0.1:\(peer.ports[0])/redirect/{index}?status=307&to=http://localhost:\(peer.ports[1])/record/upload"
        let upload = try CLIHarness.run(["upload", body, "http://127.0.0.1:\(peer.ports[0])/unused", "--part-url", part,
                                         "--no-journal", "--retries", "0", "--parallel", "1", "-q"] + headerArguments)
        XCTAssertFalse(upload.signaled, upload.stderr)
        let sent = try record(peer, "upload")
        XCTAssertEqual(sent.method, "PUT", "the 307 hop kept the method")
        XCTAssertTrue(sent.names.isDisjoint(with: Self.secretNames), "upload hop got \(sent.headers ?? [])")
        XCTAssertEqual(sent.values("X-Trace"), ["trace-1"])
    }

    func testCheckAndServeProbeSendNoSecretToAnotherOrigin() throws {
        let peer = try peer()
        let b = peer.ports[1]
        let config = CLIHarness.temporaryPath("checks.yaml")
        defer { unlink(config) }
        try """
            checks:
              - name: plain
                url: \(peer.redirect(to: "http://localhost:\(b)/record/check"))
                headers: { Authorization: "Bearer tok-abc", Cookie: "s=cookie-xyz", X-Api-Token: api-123, X-Trace: trace-1 }
              - name: trusted
                url: \(peer.redirect(to: "http://localhost:\(b)/record/trusted-check"))
                headers: { Authorization: "Bearer tok-abc", Cookie: "s=cookie-xyz", X-Api-Token: api-123 }
                trusted_redirects: true
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let outcome = try CLIHarness.run(["check", config, "--no-history"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let plain = try record(peer, "check")
        XCTAssertTrue(plain.names.isDisjoint(with: Self.secretNames), "check hop got \(plain.headers ?? [])")
        XCTAssertEqual(plain.values("X-Trace"), ["trace-1"])
        let trusted = try record(peer, "trusted-check")
        XCTAssertEqual(trusted.values("Authorization"), ["Bearer tok-abc"], "trusted_redirects: true sends them")
        XCTAssertEqual(trusted.values("X-Api-Token"), ["api-123"])

        // serve's /probe runs the same check through the same rules.
        let serveErr = CLIHarness.temporaryPath("serve.err")
        defer { unlink(serveErr) }
        let serve = try ProcessRunner.spawn(CLIHarness.binary, ["serve", "--config", config, "--listen", "127.0.0.1:0",
                                                                "--no-history"],
                                            stdoutPath: "/dev/null", stderrPath: serveErr)
        defer {
            kill(serve, SIGTERM)
            _ = waitpid(serve, nil, 0)
        }
        var port: Int?
        for _ in 0..<400 where port == nil {
            let text = (try? String(contentsOfFile: serveErr, encoding: .utf8)) ?? ""
            if let range = text.range(of: "on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            } else {
                usleep(25_000)
            }
        }
        let listening = try XCTUnwrap(port, "serve did not start: \((try? String(contentsOfFile: serveErr, encoding: .utf8)) ?? "")")
        let before = try peer.records(tag: "check").count
        let probe = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "30",
                                                            "http://127.0.0.1:\(listening)/probe?target=plain"], timeout: 40)
        XCTAssertTrue(probe.stdout.contains("probe_success{check=\"plain\"} 1"), probe.stdout + probe.stderr)
        let hops = try peer.records(tag: "check")
        XCTAssertGreaterThan(hops.count, before, "/probe reached B")
        for hop in hops {
            XCTAssertTrue(hop.names.isDisjoint(with: Self.secretNames), "/probe hop got \(hop.headers ?? [])")
        }
    }
}
