import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens download`: resuming with Range, the length check, and what it refuses.
final class DownloadCommandTests: XCTestCase {
    private func reference(_ servers: TestServers, _ path: String = "www/bytes/1m.bin") throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: servers.nginxDir).appendingPathComponent(path))
    }

    private func file(_ data: Data) -> String {
        let path = WirelensCLI.temporaryPath("download.bin")
        _ = FileManager.default.createFile(atPath: path, contents: data)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func transactions(_ reportPath: String) throws -> [[String: Any]] {
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        let tasks = report?["tasks"] as? [[String: Any]] ?? []
        return tasks.flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
    }

    func testResumeAsksForTheRestAndTheFileEndsWhole() throws {
        let servers = try TestServers.get()
        let whole = try reference(servers)
        let path = file(whole.prefix(300_000))
        let report = WirelensCLI.temporaryPath("report.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let outcome = try WirelensCLI.run(["download", servers.http("/bytes/1m.bin"), "-o", path, "--resume",
                                           "--format", "json", "--report", report])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("1048576 bytes, length checked, resumed from byte 300000"), outcome.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), whole)
        let tx = try XCTUnwrap(try transactions(report).first)
        XCTAssertEqual(tx["statusCode"] as? Int, 206)
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, whole.count - 300_000)
    }

    /// A download cut by a timeout keeps its partial file; --resume finishes it with only the missing bytes.
    func testInterruptedDownloadResumes() throws {
        let servers = try TestServers.get()
        let whole = try reference(servers, "www/slow/1m.bin")
        let path = WirelensCLI.temporaryPath("slow.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let cut = try WirelensCLI.run(["download", servers.http("/slow/1m.bin"), "-o", path, "--timeout", "700ms", "-q"])
        XCTAssertEqual(cut.status, ExitStatus.timeout.rawValue, cut.stderr)
        XCTAssertTrue(cut.stderr.contains("--resume"), cut.stderr)
        let partial = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertGreaterThan(partial.count, 0)
        XCTAssertLessThan(partial.count, whole.count)
        let report = WirelensCLI.temporaryPath("report.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let resumed = try WirelensCLI.run(["download", servers.http("/slow/1m.bin"), "-o", path, "--resume",
                                           "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), whole)
        XCTAssertEqual(try transactions(report).first?["responseBodyBytes"] as? Int, whole.count - partial.count)
    }

    /// A download killed with SIGKILL keeps what it wrote; --resume asks the target for the rest only, and the file
    /// ends equal to the resource (checked against curl's own download of it).
    func testSIGKILLThenResumeAgainstTheTarget() throws {
        let target = try SegmentPeer.start(rate: 1_000_000)
        defer { target.stop() }
        let url = target.url("/bytes/1500000")
        let path = WirelensCLI.temporaryPath("killed.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try WirelensCLI.run(["download", url, "-o", path, "-q"], timeout: 30) { pid in
            // Kill -9 once part of the file is on disk (bounded: 10 s).
            for _ in 0..<200 {
                var info = stat()
                if stat(path, &info) == 0, info.st_size >= 200_000 {
                    kill(pid, SIGKILL)
                    return
                }
                usleep(50_000)
            }
        }
        XCTAssertTrue(first.signaled, "the first run was to be killed: \(first.stderr)")
        let partial = try Data(contentsOf: URL(fileURLWithPath: path)).count
        XCTAssertGreaterThanOrEqual(partial, 200_000)
        XCTAssertLessThan(partial, 1_500_000)
        let report = WirelensCLI.temporaryPath("resumed.json")
        defer { try? FileManager.default.removeItem(atPath: report) }
        let second = try WirelensCLI.run(["download", url, "-o", path, "--resume", "--format", "json", "--report", report,
                                          "-q"], timeout: 30)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try transactions(report).first?["statusCode"] as? Int, 206)
        XCTAssertEqual(try transactions(report).first?["responseBodyBytes"] as? Int, 1_500_000 - partial)
        let reference = WirelensCLI.temporaryPath("reference.bin")
        defer { try? FileManager.default.removeItem(atPath: reference) }
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--fail", "-o", reference, url], timeout: 30)
        XCTAssertEqual(curl.status, 0, curl.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: URL(fileURLWithPath: reference)))
    }

    func testCompleteFileIsLeftAloneAndALongerOneRefused() throws {
        let servers = try TestServers.get()
        let whole = try reference(servers)
        let complete = file(whole)
        let done = try WirelensCLI.run(["download", servers.http("/bytes/1m.bin"), "-o", complete, "--resume", "-q"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: complete)), whole)

        let longer = file(whole + Data(repeating: 1, count: 10))
        let refused = try WirelensCLI.run(["download", servers.http("/bytes/1m.bin"), "-o", longer, "--resume", "-q"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("already holds \(whole.count + 10)"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: longer)).count, whole.count + 10, "the file is untouched")

        let usage = try WirelensCLI.run(["download", servers.http("/bytes/1m.bin"), "-o", longer, "--retries", "2"])
        XCTAssertEqual(usage.status, ExitStatus.usage.rawValue)
        XCTAssertTrue(usage.stderr.contains("--resume"), usage.stderr)
    }
}
