import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// CR, LF and NUL in a header or a method would split the request (curl sends them as given): the CLI and a
/// check's configuration refuse them with exit 2 and one line naming the header, and nothing reaches the server
/// (scripts/redirect-peer.py, which records every connection, is the witness). A command line cannot carry a NUL
/// (argv strings end there); YAML's "\0" can.
final class HeaderInjectionTests: XCTestCase {
    func testCLIRefusesLineBreaksInHeadersAndMethods() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let url = "http://127.0.0.1:\(peer.ports[0])/record/cli"
        let output = CLIHarness.temporaryPath("out.bin")
        defer { unlink(output) }
        let cases: [(arguments: [String], mention: String)] = [
            (["probe", url, "-H", "X-Evil: a\r\nInjected: b"], "'X-Evil'"),
            (["probe", url, "-H", "X-Evil: a\nInjected: b"], "'X-Evil'"),
            (["probe", url, "-H", "X-Split\r\nInjected: b"], "X-Split\\r\\nInjected"),
            (["probe", url, "-X", "GET /other HTTP/1.1\r\nInjected: b\r\n\r\nGET"], "-X"),
            (["download", url, "-o", output, "-H", "Authorization: Bearer a\r\nInjected: b"], "'Authorization'"),
        ]
        for (arguments, mention) in cases {
            try CLIHarness.assertFails(arguments, code: .usage, mention: mention)
        }
        let secret = try CLIHarness.run(["probe", url, "-H", "Authorization: Bearer hunter2\r\nInjected: b"])
        XCTAssertFalse(secret.stderr.contains("hunter2"), "the value stays out of the error: \(secret.stderr)")
        XCTAssertEqual(try peer.records().count, 0, "nothing reached the server")
    }

    func testCheckConfigurationRefusesLineBreaks() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let url = "http://127.0.0.1:\(peer.ports[0])/record/check"
        setenv("WL_INJECTED_VALUE", "a\r\nInjected: b", 1)
        defer { unsetenv("WL_INJECTED_VALUE") }
        let cases: [(yaml: String, mention: String)] = [
            ("headers: { X-Evil: \"a\\r\\nInjected: b\" }", ":4: checks[0].headers.X-Evil: the value of header 'X-Evil' contains"),
            ("headers: { X-Evil: \"a\\nInjected: b\" }", ":4: checks[0].headers.X-Evil: the value of header 'X-Evil' contains"),
            ("headers: { X-Nul: \"a\\0b\" }", ":4: checks[0].headers.X-Nul: the value of header 'X-Nul' contains a NUL byte"),
            ("headers: { X-Env: \"${WL_INJECTED_VALUE}\" }", ":4: checks[0].headers.X-Env: the value of header 'X-Env' contains"),
            ("headers: { \"X-Split\\r\\nInjected\": b }", "the header name 'X-Split\\r\\nInjected' contains"),
            ("user_agent: \"probe\\r\\nInjected: b\"", ":4: checks[0].user_agent: the value of header 'User-Agent' contains"),
        ]
        for (yaml, mention) in cases {
            let config = CLIHarness.temporaryPath("checks.yaml")
            defer { unlink(config) }
            try "checks:\n  - name: injected\n    url: \(url)\n    \(yaml)\n".write(toFile: config, atomically: true, encoding: .utf8)
            let outcome = try CLIHarness.run(["check", config, "--no-history"])
            XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, "\(yaml): \(outcome.stdout) \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, "one line: \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(mention), "'\(mention)' not in: \(outcome.stderr)")
        }
        XCTAssertEqual(try peer.records().count, 0, "nothing reached the server")
    }
}
