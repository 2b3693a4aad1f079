import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// A server that breaks HTTP/1.1 (slowpeer's `/broken/{kind}`: an invalid chunk size, 100 000 header lines, a
/// malformed status line, no status line) ends the probe with the protocol class and its exit code 9, not with
/// 6 ("refused, unreachable, reset"), and is not retried: a broken server stays broken.
final class ProtocolViolationTests: XCTestCase {
    func testBrokenRepliesAreProtocolErrorsWithExitCodeNine() throws {
        let servers = try TestServers.get()
        for kind in ["chunk", "headers", "status", "http09"] {
            let report = CLIHarness.temporaryPath("broken-\(kind).json")
            defer { unlink(report) }
            let outcome = try CLIHarness.run(["probe", "--retries", "2", "--format", "json", "--report", report, "-q",
                                              servers.peer("/broken/\(kind)")], timeout: 60)
            XCTAssertEqual(outcome.status, ExitStatus.transfer.rawValue, "\(kind): \(outcome.stderr)")
            XCTAssertEqual(outcome.status, 9, "the README's code for a protocol error")
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, "\(kind): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("/broken/\(kind): protocol: "), "\(kind): \(outcome.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            let task = try XCTUnwrap(((json as? [String: Any])?["tasks"] as? [[String: Any]])?.first)
            XCTAssertEqual((task["error"] as? [String: Any])?["class"] as? String, "protocol", kind)
            XCTAssertEqual(task["retries"] as? Int, 0, "\(kind): a protocol violation is not retried")
        }
    }
}
