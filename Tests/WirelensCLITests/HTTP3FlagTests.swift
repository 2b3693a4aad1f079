import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--http3` and `--http3-only` (issue 31 item 6): with a libcurl whose features list no HTTP3, as
/// `curl-config` describes the libcurl Wirelens is built with, each is one line naming that libcurl's version and
/// exit 2; with one that lists it, the flag is taken.
final class HTTP3FlagTests: XCTestCase {
    /// The libcurl `curl-config` describes: its version and whether its features include HTTP3.
    private func libcurl() throws -> (version: String, http3: Bool) {
        let version = try ProcessRunner.run("/usr/bin/env", ["curl-config", "--version"], timeout: 10)
        let features = try ProcessRunner.run("/usr/bin/env", ["curl-config", "--features"], timeout: 10)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(features.status, 0, features.stderr)
        // "libcurl 7.88.1"
        let number = try XCTUnwrap(version.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return (number, features.stdout.split(separator: "\n").contains("HTTP3"))
    }

    func testHTTP3NeedsALibcurlWithIt() throws {
        let servers = try TestServers.get()
        let (version, http3) = try libcurl()
        for flag in ["--http3", "--http3-only"] {
            let arguments = ["probe", "-q", "-k", flag, servers.https("/small.txt")]
            if http3 {
                let outcome = try CLIHarness.run(arguments)
                XCTAssertFalse(outcome.stderr.contains("has no HTTP/3"), outcome.stderr)
            } else {
                // curl refuses the option as a usage error too, with the same exit code.
                let byCurl = try ProcessRunner.run("/usr/bin/env", ["curl", "-s", "-k", flag, servers.https("/small.txt")])
                XCTAssertEqual(byCurl.status, ExitStatus.usage.rawValue, byCurl.stderr)
                try CLIHarness.assertFails(arguments, code: .usage, mention: "\(flag): the running libcurl \(version) has no HTTP/3")
            }
        }
        try CLIHarness.assertFails(["probe", "--http3", "--http2", servers.https("/small.txt")], code: .usage,
                                   mention: "give only one of")
        try CLIHarness.assertFails(["compare", "--http3", servers.https("/small.txt")], code: .usage, mention: "--modes")
    }
}
