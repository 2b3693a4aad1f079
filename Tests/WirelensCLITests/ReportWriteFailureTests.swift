import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// A report that cannot be written, for every command that takes `--report`: one line naming the path and exit 3,
/// before any request when the path cannot take a file, and once (never written again to stdout) when the file
/// fails while the report is written.
final class ReportWriteFailureTests: XCTestCase {
    /// procfs creates no file, not even for root (for whom `access(2)` says its directory is writable).
    static let noFile = "/proc/wirelens-report.json"

    /// The path refused at once: the listener's accept queue, read from the kernel by `poll`, holds no connection
    /// after each command, so none made a request.
    func testAPathThatTakesNoFileFailsBeforeAnyRequest() throws {
        let listener = try LoopbackSocket.listener()
        let url = "http://127.0.0.1:\(listener.port)/"
        let (output, config) = try files(checking: url)
        let commands: [[String]] = [
            ["probe", url, "-m", "2s", "--report", Self.noFile],
            ["probe", url, "-m", "2s", "--format", "har", "--report", Self.noFile],
            ["probe", url, "-m", "2s", "--format", "json", "--report", Self.noFile],
            ["probe", url, "-m", "2s", "--capture-report", Self.noFile],
            ["download", url, "-o", output, "-m", "2s", "--report", Self.noFile],
            ["compare", url, "--limits", "1", "--repeat", "1", "--workload", "requests:1", "-m", "2s",
             "--report", Self.noFile, "-q"],
            ["check", config, "--no-history", "--report", Self.noFile],
        ]
        for arguments in commands {
            let outcome = try CLIHarness.run(arguments, timeout: 30)
            assertOneLineExit3(outcome, naming: Self.noFile, arguments)
            XCTAssertFalse(Self.hasPendingConnection(listener), "a request was made: \(arguments)")
        }
    }

    /// /dev/full takes no byte (ENOSPC): the work runs once and its report is not written to stdout instead.
    func testAWriteThatFailsIsOneLineAndExit3WithNothingOnStdout() throws {
        let servers = try TestServers.get()
        let url = servers.http("/small.txt")
        let (output, config) = try files(checking: url)
        let commands: [[String]] = [
            ["probe", url, "--report", "/dev/full"],
            ["probe", url, url, "--format", "har", "--report", "/dev/full"],
            ["probe", url, "--format", "html", "--report", "/dev/full"],
            ["download", url, "-o", output, "--report", "/dev/full"],
            ["compare", url, "--limits", "1", "--repeat", "1", "--workload", "requests:2", "--format", "json",
             "--report", "/dev/full", "-q"],
            ["check", config, "--no-history", "--report", "/dev/full"],
        ]
        for arguments in commands {
            let outcome = try CLIHarness.run(arguments, timeout: 30)
            assertOneLineExit3(outcome, naming: "/dev/full", arguments)
        }
    }

    /// `render` (which writes to stdout only) into /dev/full: one line and exit 3, not Foundation's trap.
    func testRenderToAFullStdoutIsOneLineAndExit3() throws {
        let servers = try TestServers.get()
        let report = CLIHarness.temporaryPath("render.json")
        defer { unlink(report) }
        let probe = try CLIHarness.run(["probe", servers.http("/small.txt"), "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        for format in ["text", "json", "html"] {
            let outcome = try ProcessRunner.run("/bin/sh", ["-c", "exec \"$0\" render \"$1\" --format \"$2\" > /dev/full",
                                                            CLIHarness.binary, report, format], timeout: 30)
            let context = "render --format \(format): \(outcome.stderr)"
            XCTAssertEqual(outcome.status, ExitStatus.localFile.rawValue, context)
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, context)
            XCTAssertTrue(outcome.stderr.contains("stdout"), context)
        }
    }

    /// A download's output path and a configuration of one check of `url` (2 s timeout), removed after the test.
    private func files(checking url: String) throws -> (output: String, config: String) {
        let output = CLIHarness.temporaryPath("download.bin")
        let config = CLIHarness.temporaryPath("checks.yaml")
        addTeardownBlock {
            unlink(output)
            unlink(config)
        }
        try Data("checks:\n  - name: a\n    url: \(url)\n    timeout: 2s\n".utf8).write(to: URL(fileURLWithPath: config))
        return (output, config)
    }

    private func assertOneLineExit3(_ outcome: ProcessRunner.Outcome, naming path: String, _ arguments: [String],
                                    file: StaticString = #filePath, line: UInt = #line) {
        let context = "\(arguments.joined(separator: " ")): \(outcome.stderr)"
        XCTAssertEqual(outcome.status, ExitStatus.localFile.rawValue, context, file: file, line: line)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, context, file: file, line: line)
        XCTAssertTrue(outcome.stderr.contains("'\(path)'"), context, file: file, line: line)
        XCTAssertEqual(outcome.stdout, "", "nothing is written instead: \(context)", file: file, line: line)
    }

    /// True when a connection waits in the listener's accept queue (the kernel completes handshakes without accept).
    private static func hasPendingConnection(_ listener: LoopbackSocket) -> Bool {
        var entry = pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }
}
