import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// A server's Retry-After is capped (`--retry-max-wait`, 30 s by default), the whole task stays within `--timeout`,
/// and the report shows each wait before a retry. scripts/redirect-peer.py answers 503 with the Retry-After asked.
///
/// The process timeouts below are bounds (a run that slept as asked would be killed and fail), not measurements.
final class RetryAfterCapTests: XCTestCase {
    private func transactions(_ outcome: ProcessRunner.Outcome) throws -> [[String: Any]] {
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                                   outcome.stderr)
        let task = try XCTUnwrap((report["tasks"] as? [[String: Any]])?.first)
        return try XCTUnwrap(task["transactions"] as? [[String: Any]])
    }

    func testRetryAfterIsCappedAndShown() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let url = "http://127.0.0.1:\(peer.ports[0])/retry-after/99999999"
        let outcome = try CLIHarness.run(["probe", url, "--retries", "1", "--retry-max-wait", "1s", "--format", "json"],
                                         timeout: 30)
        XCTAssertFalse(outcome.signaled, "killed: it slept as the server asked")
        XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, outcome.stderr)
        let txs = try transactions(outcome)
        XCTAssertEqual(txs.map { $0["kind"] as? String }, ["initial", "retry"])
        XCTAssertNil(txs[0]["retryWaitMs"], "the first attempt waited for nothing")
        XCTAssertEqual(txs[1]["retryWaitMs"] as? Double, 1000, "capped at --retry-max-wait")
        XCTAssertEqual(txs[1]["retryAfterMs"] as? Double, 99_999_999_000, "what the server asked")

        let text = try CLIHarness.run(["probe", url, "--retries", "1", "--retry-max-wait", "1s", "--no-color"], timeout: 30)
        XCTAssertTrue(text.stdout.contains("waited 1.00s before this attempt"), text.stdout)
    }

    func testTimeoutBoundsTheTaskWhateverTheServerAsks() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        // Beyond Int64 microseconds: parsed without overflow, capped at the default 30 s, which --timeout 3s does not
        // leave: no retry, the task ends with the 503.
        let url = "http://127.0.0.1:\(peer.ports[0])/retry-after/99999999999999"
        let outcome = try CLIHarness.run(["probe", url, "--retries", "3", "--timeout", "3s", "--format", "json"], timeout: 20)
        XCTAssertFalse(outcome.signaled, "a crash or a sleep past --timeout: \(outcome.stderr)")
        XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, outcome.stderr)
        XCTAssertEqual(try transactions(outcome).count, 1, "no retry the timeout cannot hold")

        try CLIHarness.assertFails(["probe", url, "--retry-max-wait", "25h"], code: .usage, mention: "--retry-max-wait")
        try CLIHarness.assertFails(["probe", url, "--retry-max-wait", "soon"], code: .usage, mention: "--retry-max-wait")
    }
}
