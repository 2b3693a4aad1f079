import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// The small things a new user tripped over (issue 18): each checked end to end against the built executable.
final class UserTripTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    private func temporaryPath(_ name: String) -> String {
        let path = CLIHarness.temporaryPath(name)
        paths.append(path)
        return path
    }

    /// `wirelens` alone is a usage mistake: the overview of every command on stdout, exit 2 (not 0).
    func testBareCommandPrintsTheOverviewAndExitsWithUsage() throws {
        let outcome = try CLIHarness.run([])
        XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, outcome.stderr)
        // The command list, as the README's Use section names them.
        for name in ["probe", "download", "upload", "compare", "check", "history", "serve", "target", "render", "capture"] {
            XCTAssertTrue(outcome.stdout.contains("  \(name) "), "'\(name)' missing from:\n\(outcome.stdout)")
        }
    }

    /// Every duration flag and config key: a bare number is seconds, zero or less is refused with one rule.
    func testDurationsFollowOneRule() throws {
        let url = "http://127.0.0.1:9/"
        for (flag, value) in [("--timeout", "0"), ("--timeout", "-1"), ("--connect-timeout", "0s"), ("--idle-timeout", "-5ms")] {
            try CLIHarness.assertFails(["probe", url, "\(flag)=\(value)"], code: .usage,
                                       mention: "\(flag) '\(value)' must be greater than 0")
        }
        try CLIHarness.assertFails(["probe", url, "--timeout", "soon"], code: .usage, mention: "'soon' is not a duration")
        try CLIHarness.assertFails(["target", "--listen", "127.0.0.1:0", "--latency", "0"], code: .usage,
                                   mention: "--latency '0' must be greater than 0")
        try CLIHarness.assertFails(["target", "--listen", "127.0.0.1:0", "--stall=-2s"], code: .usage,
                                   mention: "--stall '-2s' must be greater than 0")
        let config = temporaryPath("durations.yaml")
        for (key, value) in [("timeout", "0"), ("every", "-1")] {
            try "checks:\n  - name: a\n    url: \(url)\n    \(key): \(value)\n".write(toFile: config, atomically: true, encoding: .utf8)
            try CLIHarness.assertFails(["check", config], code: .usage, mention: "\(key): '\(value)' must be greater than 0")
        }
        // Bare seconds are taken everywhere: the YAML limit `max: 1` and `timeout: 2` load (the check then fails
        // on the closed port, exit 6 or 1, not a configuration error).
        try "checks:\n  - name: a\n    url: \(url)\n    timeout: 2\n    expect:\n      total: { max: 1 }\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let loaded = try CLIHarness.run(["check", config, "--history", temporaryPath("h.sqlite")])
        XCTAssertNotEqual(loaded.status, ExitStatus.usage.rawValue, loaded.stderr + loaded.stdout)
    }

    /// A bad duration or host mapping is the flag's own line, after ArgumentParser's own mistakes: an unknown option
    /// or a stray value is still named first, and an earlier flag's check comes before a later one's. Defaults show
    /// in the help as written.
    func testTypedFlagValuesKeepTheErrorOrder() throws {
        let url = "http://127.0.0.1:9/"
        try CLIHarness.assertFails(["probe", "--idle-timeout", "soon", "--frobnicate", url], code: .usage, mention: "frobnicate")
        try CLIHarness.assertFails(["probe", "--resolve", "a.test:80", "--frobnicate", url], code: .usage, mention: "frobnicate")
        try CLIHarness.assertFails(["history", "--since", "soon", "extra", "more"], code: .usage, mention: "more")
        try CLIHarness.assertFails(["probe", "--concurrency", "0", "--idle-timeout", "soon", url], code: .usage,
                                   mention: "--concurrency must be 1 or more")
        try CLIHarness.assertFails(["probe", "--connect-to", "a.test:80:b.test:70000", url], code: .usage,
                                   mention: "--connect-to 'a.test:80:b.test:70000': the port '70000' must be a number from 1 to 65535")
        try CLIHarness.assertFails(["check", "c.yaml", "--every", "soon"], code: .usage, mention: "--every 'soon' is not a duration")
        for (command, line) in [(["history"], "(default: 24h)"), (["serve"], "(default: 10s)"), (["serve"], "(default: 60s)")] {
            let help = try CLIHarness.run(command + ["--help"])
            XCTAssertEqual(help.status, 0, help.stderr)
            let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            XCTAssertTrue(words.contains(line), "\(line) not in: \(help.stdout)")
        }
    }

    /// `history` names its windows as `--since` takes them: 48h, not 172800.00s.
    func testHistoryWindowInHumanUnits() throws {
        let database = temporaryPath("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data()))
        let day = try CLIHarness.run(["history", "nosuch", "--history", database])
        XCTAssertTrue(day.stderr.contains("no results for check 'nosuch' in the last 48h"), day.stderr)
        let minutes = try CLIHarness.run(["history", "nosuch", "--history", database, "--since", "90m"])
        XCTAssertTrue(minutes.stderr.contains("in the last 3h"), minutes.stderr)
    }

    /// `download -o /dev/null` works as curl's does: exit 0, the length checked against the bytes received
    /// (curl's size_download of the same URL), and /dev/null still a character device afterwards.
    func testDownloadToDevNull() throws {
        let servers = try TestServers.get()
        let url = servers.http("/bytes/1m.bin")
        let curl = try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "-o", "/dev/null", "-w", "%{size_download}", url])
        XCTAssertEqual(curl.status, 0, curl.stderr)
        let outcome = try CLIHarness.run(["download", url, "-o", "/dev/null"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("/dev/null: \(curl.stdout) bytes, length checked"), outcome.stderr)
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null must stay a character device")
    }

    /// A file of one segment had one segment in flight, whatever --parallel allowed.
    func testOneSegmentUploadReportsOneInFlight() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let file = temporaryPath("one.bin")
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: file))
        let outcome = try CLIHarness.run(["upload", file, peer.uploadURL("one"), "--segment-size", "1MiB",
                                          "--parallel", "4", "--journal", temporaryPath("j.sqlite"), "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        // 100000 bytes in 1 MiB segments: ceil(100000 / 1048576) = 1 segment.
        XCTAssertTrue(outcome.stdout.contains("1 sent of 1, 1 in flight at most"), outcome.stdout)
    }

    /// HAR without --include-headers still has the status text and the content type (curl's view of the same
    /// answer, read by python's json); the headers stay opt-in.
    func testHARKeepsStatusTextAndMimeTypeWithoutHeaders() throws {
        let servers = try TestServers.get()
        let url = servers.http("/bytes/1m.bin")
        let curl = try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "-o", "/dev/null", "-D", "-", url])
        XCTAssertEqual(curl.status, 0, curl.stderr)
        let lines = curl.stdout.split(separator: "\r\n")
        // "HTTP/1.1 200 OK": the reason phrase is what follows the second space.
        let reason = try XCTUnwrap(lines.first).split(separator: " ", maxSplits: 2).dropFirst(2).joined()
        let type = try XCTUnwrap(lines.first { $0.lowercased().hasPrefix("content-type:") })
            .dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
        XCTAssertFalse(reason.isEmpty)
        let har = temporaryPath("run.har")
        let outcome = try CLIHarness.run(["probe", url, "--format", "har", "--report", har, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let read = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys
            r = json.load(open(sys.argv[1]))["log"]["entries"][0]["response"]
            print(r["statusText"]); print(r["content"]["mimeType"]); print(len(r["headers"]))
            """, har])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, "\(reason)\n\(type)\n0\n")
    }

    /// Ctrl-C in the middle of an upload: the summary counts every segment of the file (1 MiB in 64 KiB segments
    /// is 16 by arithmetic), and the cancelled segments are not "retried".
    func testInterruptedUploadCountsTheFileAndRetriesNothing() throws {
        let peer = try SegmentPeer.start(partDelayMs: 200)
        defer { peer.stop() }
        let file = temporaryPath("sixteen.bin")
        try Data(repeating: 3, count: 1 << 20).write(to: URL(fileURLWithPath: file))
        let report = temporaryPath("interrupted.json")
        let outcome = try CLIHarness.run(["upload", file, peer.uploadURL("ctrlc"), "--segment-size", "64KiB",
                                          "--parallel", "2", "--journal", temporaryPath("c.sqlite"), "-q",
                                          "--format", "json", "--report", report]) { pid in
            // 16 parts at 200 ms, 2 at a time: well over a second; Ctrl-C after 600 ms.
            usleep(600_000)
            kill(pid, SIGINT)
        }
        XCTAssertEqual(outcome.status, ExitStatus.interrupted.rawValue, outcome.stderr)
        let read = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys
            u = json.load(open(sys.argv[1]))["upload"]
            print(u["segmentsTotal"], u["segmentsRetried"], u["failedAttempts"], u["segmentsSent"] < 16)
            """, report])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, "16 0 0 True\n")
    }

    /// The upload's progress counts what the server acknowledged, not what was handed to libcurl and the kernel: with
    /// the target reading at 512 KiB/s into a 64 KiB receive buffer, no line may show more than that rate allows by
    /// its elapsed time (plus half a second, the buffers and the bucket's burst: 256 KiB). Main showed 100% at 1 s.
    func testUploadProgressCountsAcknowledgedBytes() throws {
        let rate = 512 * 1024
        let peer = try SegmentPeer.start(rate: rate, receiveBuffer: 64 * 1024)
        defer { peer.stop() }
        let file = temporaryPath("two.bin")
        let size = 2 << 20
        try Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: file))
        let outcome = try CLIHarness.run(["upload", file, peer.uploadURL("acked"), "--segment-size", "2MiB",
                                          "--parallel", "1", "--no-journal", "--report", temporaryPath("a.txt")])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        // "progress 1.00s 562.3 KiB/2.00 MiB (27%) ...": stderr is no terminal, so plain lines once a second.
        let lines = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("progress ") }
        XCTAssertFalse(lines.isEmpty, "a 4 s upload shows its progress: \(outcome.stderr)")
        for line in lines {
            let words = line.split(separator: " ")
            let elapsed = try XCTUnwrap(Double(words[1].dropLast()), String(line))
            XCTAssertTrue(words[1].hasSuffix("s") && !words[1].hasSuffix("ms"), String(line))
            let percent = try XCTUnwrap(line.split(separator: "(").dropFirst().first?.split(separator: "%").first
                                            .flatMap { Int($0) }, String(line))
            let allowed = (Double(rate) * (elapsed + 0.5) + 256 * 1024) / Double(size) * 100
            XCTAssertLessThanOrEqual(Double(percent), allowed, String(line))
        }
    }
}
