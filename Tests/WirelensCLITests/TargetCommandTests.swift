import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens target` end to end: the address line scripts parse, serving, a clean exit on SIGTERM, bad flags.
final class TargetCommandTests: XCTestCase {
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wirelens").path
    }

    /// Starts the target with `arguments`; returns its pid and the URL from its first stdout line (waits ≤ 10 s).
    private func startTarget(_ arguments: [String]) throws -> (pid: pid_t, url: String, stdout: String) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wl-target-\(UUID().uuidString).out").path
        let pid = try ProcessRunner.spawn(binary, ["target"] + arguments, stdoutPath: out, stderrPath: "/dev/null")
        for _ in 0..<400 {
            if let text = try? String(contentsOfFile: out, encoding: .utf8), text.hasSuffix("\n") {
                let line = String(text.dropLast())
                guard line.hasPrefix("listening on http://") else { break }
                return (pid, String(line.dropFirst("listening on ".count)), out)
            }
            usleep(25_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, nil, 0)
        throw TestServerError(message: "wirelens target printed no address: \((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")")
    }

    /// Waits (≤ 10 s) for `pid` to exit; returns its exit code, or nil when it had to be killed or died of a signal.
    private func exitCode(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        for _ in 0..<400 {
            if waitpid(pid, &status, WNOHANG) == pid {
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
            }
            usleep(25_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return nil
    }

    func testPrintsItsAddressServesAndExitsZeroOnSIGTERM() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("wl-target-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let (pid, url, stdout) = try startTarget(["--listen", "127.0.0.1:0", "--latency", "10ms", "--rate", "10MB/s",
                                                  "--data-dir", dataDir])
        defer { unlink(stdout) }
        XCTAssertTrue(url.range(of: #"^http://127\.0\.0\.1:[0-9]+$"#, options: .regularExpression) != nil, url)
        let fetched = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                                                              url + "/bytes/12345"], timeout: 30)
        XCTAssertEqual(fetched.stdout, "200 12345")
        let part = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-T", "/etc/hostname", "-H",
                                                           "Content-Range: bytes 0-\(try hostnameSize() - 1)/\(try hostnameSize())",
                                                           url + "/upload/cli/part/0"], timeout: 30)
        XCTAssertTrue(part.stdout.contains("\"index\":0"), part.stdout + part.stderr)
        let size = try hostnameSize()
        XCTAssertTrue(FileManager.default.fileExists(atPath: dataDir + "/cli/part-0-0-\(size)"), "parts go to --data-dir")
        kill(pid, SIGTERM)
        XCTAssertEqual(exitCode(pid), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dataDir), "a given --data-dir is kept")
    }

    private func hostnameSize() throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: "/etc/hostname")[.size] as? Int)
    }

    func testSIGINTStopsItToo() throws {
        let (pid, _, stdout) = try startTarget(["--listen", "127.0.0.1:0"])
        defer { unlink(stdout) }
        kill(pid, SIGINT)
        XCTAssertEqual(exitCode(pid), 0)
    }

    func testBadFlagsAreOneLineUsageErrors() throws {
        for (arguments, mention) in [(["--listen", "nowhere"], "--listen"), (["--rate", "fast"], "--rate"),
                                     (["--latency", "soon"], "--latency"), (["--fail-parts", "2"], "--fail-parts"),
                                     (["--max-requests", "0"], "--max-requests"), (["--fault-status", "99"], "--fault-status")] {
            let outcome = try ProcessRunner.run(binary, ["target"] + arguments, timeout: 30)
            XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(mention), outcome.stderr)
        }
        let badDir = try ProcessRunner.run(binary, ["target", "--listen", "127.0.0.1:0", "--data-dir", "/proc/no/such"], timeout: 30)
        XCTAssertEqual(badDir.status, ExitStatus.localFile.rawValue, badDir.stderr)
    }

    /// A listen address another socket holds: one line naming it and what to do, and the exit code `serve` gives
    /// for the same trouble.
    func testAPortInUseIsOneLineWithTheListenCode() throws {
        let holder = try LoopbackSocket.listener()
        let second = try ProcessRunner.run(binary, ["target", "--listen", "127.0.0.1:\(holder.port)"], timeout: 30)
        XCTAssertEqual(second.status, ExitStatus.listenUnavailable.rawValue, second.stderr)
        XCTAssertEqual(second.stderr, "wirelens: 127.0.0.1:\(holder.port) is in use: pick another --listen\n")
        XCTAssertEqual(second.stdout, "", "no 'listening on' line")
    }
}
