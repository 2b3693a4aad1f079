import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// Which HTTP statuses are worth another attempt, held to curl's `--retry`: a loopback server
/// (scripts/redirect-peer.py) answers each status and records every request; curl, `wirelens probe --retries 1` and
/// `wirelens upload --retries 1` (segment retries) run against it, and the requests the server saw tell who retried.
/// The "Retryable statuses" line of docs/probing.md lists the same set.
final class RetryableStatusTests: XCTestCase {
    /// A spread over 4xx and 5xx: curl's set, its neighbours, and the edges.
    private static let statuses = [400, 404, 408, 409, 413, 418, 425, 429, 499, 500, 501, 502, 503, 504, 505, 507, 511, 599]

    private var peer: RedirectPeer!

    override func setUpWithError() throws {
        peer = try RedirectPeer(listen: ["127.0.0.1"])
    }

    override func tearDown() {
        peer = nil
    }

    /// The URL answering `status` under `/record/TAG/...`.
    private func url(_ tag: String, _ rest: String = "x", status: Int) -> String {
        "http://127.0.0.1:\(peer.ports[0])/record/\(tag)/\(rest)?status=\(status)"
    }

    /// How many requests the server saw under `/record/TAG/`.
    private func requests(_ tag: String) throws -> Int {
        try peer.records().filter { $0.path?.hasPrefix("/record/\(tag)/") == true }.count
    }

    /// The statuses after which curl (`--retry 1 --retry-delay 0`) sent a second request.
    private func curlRetried() throws -> Set<Int> {
        var retried = Set<Int>()
        // A regular file: before a retry curl truncates its output, which /dev/null refuses (and curl gives up).
        let output = CLIHarness.temporaryPath("curl-retry.out")
        defer { unlink(output) }
        for status in Self.statuses {
            let tag = "curl-\(status)"
            let outcome = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", output, "--retry", "1", "--retry-delay", "0",
                                                                  url(tag, status: status)], timeout: 30)
            XCTAssertFalse(outcome.signaled, outcome.stderr)
            let seen = try requests(tag)
            XCTAssertTrue(seen == 1 || seen == 2, "curl sent \(seen) requests for \(status)")
            if seen == 2 { retried.insert(status) }
        }
        return retried
    }

    func testProbeRetriesExactlyTheStatusesCurlRetries() throws {
        let curl = try curlRetried()
        XCTAssertFalse(curl.isEmpty, "curl retried nothing: the oracle is broken")
        var wirelens = Set<Int>()
        for status in Self.statuses {
            let tag = "probe-\(status)"
            let outcome = try CLIHarness.run(["probe", url(tag, status: status), "--retries", "1", "--retry-max-wait", "10ms",
                                              "--format", "json"], timeout: 30)
            XCTAssertFalse(outcome.signaled, outcome.stderr)
            XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, outcome.stderr)
            let seen = try requests(tag)
            XCTAssertTrue(seen == 1 || seen == 2, "wirelens sent \(seen) requests for \(status)")
            if seen == 2 { wirelens.insert(status) }
        }
        XCTAssertEqual(wirelens.sorted(), curl.sorted(), "probe retries")
        try assertDocumented(curl)
    }

    func testSegmentRetriesExactlyTheStatusesCurlRetries() throws {
        let curl = try curlRetried()
        XCTAssertFalse(curl.isEmpty, "curl retried nothing: the oracle is broken")
        let file = CLIHarness.temporaryPath("retry-segment.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data(repeating: 7, count: 1000)))
        defer { unlink(file) }
        var wirelens = Set<Int>()
        for status in Self.statuses {
            let tag = "upload-\(status)"
            let outcome = try CLIHarness.run([
                "upload", file, url(tag, status: status), "--part-url", url(tag, "{index}", status: status),
                "--segment-size", "1000", "--parallel", "1", "--retries", "1", "--no-journal", "--format", "json",
            ], timeout: 30)
            XCTAssertFalse(outcome.signaled, outcome.stderr)
            XCTAssertNotEqual(outcome.status, 0, "status \(status) accepted: \(outcome.stderr)")
            let seen = try requests(tag)
            XCTAssertTrue(seen == 1 || seen == 2, "wirelens sent \(seen) parts for \(status)")
            if seen == 2 { wirelens.insert(status) }
        }
        XCTAssertEqual(wirelens.sorted(), curl.sorted(), "segment retries")
    }

    /// The probing guide's "Retryable statuses" line names exactly `statuses` (of those tried).
    private func assertDocumented(_ statuses: Set<Int>) throws {
        let guide = try String(contentsOf: TestServers.repositoryRoot.appendingPathComponent("docs/probing.md"), encoding: .utf8)
        let line = try XCTUnwrap(guide.split(separator: "\n").first { $0.hasPrefix("Retryable statuses") },
                                 "docs/probing.md has no 'Retryable statuses' line")
        let listed = Set(line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.filter { (100...599).contains($0) })
        XCTAssertEqual(listed.intersection(Self.statuses).sorted(), statuses.sorted(), String(line))
    }
}
