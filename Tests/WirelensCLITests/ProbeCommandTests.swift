import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// The `wirelens` executable end to end: exit codes, one-line errors, reports, redaction, SIGINT.
final class ProbeCommandTests: XCTestCase {
    private func wirelens(_ arguments: [String], timeout: TimeInterval = 60,
                          afterStart: ((pid_t) -> Void)? = nil) throws -> ProcessRunner.Outcome {
        try CLIHarness.run(arguments, timeout: timeout, afterStart: afterStart)
    }

    private func temporaryPath(_ name: String) -> String { CLIHarness.temporaryPath(name) }

    private func assertFails(_ arguments: [String], code: ExitStatus, mention: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        try CLIHarness.assertFails(arguments, code: code, mention: mention, file: file, line: line)
    }

    func testVersionNamesLibcurl() throws {
        let outcome = try wirelens(["--version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stdout.hasPrefix("wirelens \(WirelensVersion.current) (libcurl 7."), outcome.stdout)
    }

    func testBadInputGivesOneLineAndDocumentedCode() throws {
        let servers = try TestServers.get()
        try assertFails(["probe", "http://exa mple.com/"], code: .usage, mention: "exa mple.com")
        try assertFails(["probe", "ftp://127.0.0.1/file"], code: .usage, mention: "ftp")
        try assertFails(["probe", "--upload", "/nonexistent/upload.bin", servers.http("/upload/x")],
                        code: .localFile, mention: "/nonexistent/upload.bin")
        try assertFails(["probe", "--upload-size", "ten", servers.http("/")], code: .usage, mention: "ten")
        try assertFails(["probe", "--idle-timeout", "soon", servers.http("/")], code: .usage, mention: "soon")
        try assertFails(["probe", "--concurrency", "0", servers.http("/")], code: .usage, mention: "--concurrency")
        try assertFails(["probe", "--frobnicate", servers.http("/")], code: .usage, mention: "frobnicate")
        try assertFails(["probe", "-H", "no colon here", servers.http("/")], code: .usage, mention: "Name: value")
        try assertFails(["probe", "http://wirelens-test.invalid/"], code: .dns, mention: "wirelens-test.invalid")
        try assertFails(["probe", "http://127.0.0.1:1/"], code: .connect, mention: "127.0.0.1:1")
        try assertFails(["probe", servers.https("/small.txt")], code: .tls, mention: "certificate")
        try assertFails(["probe", "--cacert", "/nonexistent/ca.pem", servers.https("/small.txt")],
                        code: .localFile, mention: "/nonexistent/ca.pem")
        try assertFails(["probe", servers.http("/status/404")], code: .httpError, mention: "404")
        try assertFails(["probe", "--idle-timeout", "300ms", servers.target("/bytes/1000?pause_after=100&pause=5")], code: .timeout,
                        mention: "idle timeout")
        try assertFails(["probe", "--timeout", "300ms", servers.http("/slow/1m.bin")], code: .timeout,
                        mention: "total timeout")
        try assertFails(["probe", "--report", "/nonexistent/dir/r.json", servers.http("/small.txt")],
                        code: .localFile, mention: "/nonexistent/dir/r.json")
    }

    func testFailedTransferIsATaskInTheReport() throws {
        let report = temporaryPath("refused.json")
        defer { unlink(report) }
        let outcome = try wirelens(["probe", "http://127.0.0.1:1/", "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, ExitStatus.connect.rawValue)
        let decoded = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        XCTAssertEqual(decoded.tasks.count, 1)
        XCTAssertEqual(decoded.tasks[0].error?.errorClass, .connect)
        XCTAssertEqual(decoded.summary.errors["connect"], 1)
    }

    /// Validates a report file against docs/report.schema.json with python's jsonschema.
    private func assertValidAgainstSchema(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try CLIHarness.assertValid(path, schema: "report.schema.json", file: file, line: line)
    }

    func testJSONReportOf1000RequestsValidatesAgainstTheSchema() throws {
        let servers = try TestServers.get()
        let report = temporaryPath("many.json")
        defer { unlink(report) }
        let outcome = try wirelens(["probe", servers.http("/small.txt"), "--repeat", "1000", "--concurrency", "8",
                                    "--max-host-connections", "4", "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let decoded = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        XCTAssertEqual(decoded.tasks.count, 1000)
        XCTAssertEqual(decoded.summary.succeeded, 1000)
        XCTAssertLessThanOrEqual(decoded.summary.connections.opened, 4)
        XCTAssertLessThanOrEqual(decoded.summary.connections.maxOpenAtOnce, 4)
        XCTAssertEqual(decoded.summary.connections.opened + decoded.summary.connections.reused, 1000)
        try assertValidAgainstSchema(report)
    }

    func testLargeReportOnStdoutIsCompactInTaskOrderAndValid() throws {
        let servers = try TestServers.get()
        let outcome = try wirelens(["probe", servers.http("/small.txt"), "--repeat", "1200", "--concurrency", "8",
                                    "--format", "json", "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout.split(separator: "\n").count, 1, "above 1000 tasks the document is one line")
        let decoded = try JSONDecoder().decode(Report.self, from: Data(outcome.stdout.utf8))
        XCTAssertEqual(decoded.tasks.map(\.index), Array(0..<1200))
        XCTAssertEqual(decoded.summary.succeeded, 1200)
        XCTAssertTrue(decoded.tasks.allSatisfy { $0.transactions.count == 1 && $0.transactions[0].localPort != nil })
        let path = temporaryPath("compact.json")
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(outcome.stdout.utf8)))
        try assertValidAgainstSchema(path)
    }

    func testTextWaterfallForOneURL() throws {
        let servers = try TestServers.get()
        let outcome = try wirelens(["probe", servers.https("/bytes/1k.bin"), "--cacert", servers.certPath])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        for label in ["DNS lookup", "TCP connect", "TLS handshake", "Server wait", "TLSv1."] {
            XCTAssertTrue(outcome.stdout.contains(label), "\(label) missing in:\n\(outcome.stdout)")
        }
        XCTAssertFalse(outcome.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    func testSecretsNeverReachTheReport() throws {
        let servers = try TestServers.get()
        let report = temporaryPath("secret.json")
        defer { unlink(report) }
        let outcome = try wirelens([
            "probe", servers.peer("/echo-headers?access_token=tok-SECRET-1&page=2"),
            "-H", "Authorization: Bearer SECRET-2", "-H", "Cookie: session=SECRET-3",
            "-H", "X-Oss-Security-Token: SECRET-4", "-H", "X-Trace: visible-value",
            "--include-headers", "--format", "json", "--report", report,
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertFalse(text.contains("SECRET"), "a secret reached the report")
        XCTAssertFalse(outcome.stderr.contains("SECRET"))
        XCTAssertTrue(text.contains("visible-value"), "other headers are kept")
        XCTAssertTrue(text.contains("page=2"))
        XCTAssertTrue(text.contains(Redactor.mask))
    }

    func testOutputWritesTheBody() throws {
        let servers = try TestServers.get()
        let output = temporaryPath("body.bin")
        defer { unlink(output) }
        let outcome = try wirelens(["probe", servers.http("/bytes/1m.bin"), "-o", output, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let expected = try Data(contentsOf: URL(fileURLWithPath: servers.nginxDir).appendingPathComponent("www/bytes/1m.bin"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), expected)
    }

    /// SIGINT and SIGTERM both end the run with what was gathered; the exit code says which: 130 and 143, as a
    /// shell reports a process killed by either.
    func testSIGINTAndSIGTERMWriteWhatWasGathered() throws {
        let servers = try TestServers.get()
        for (signal, code) in [(SIGINT, ExitStatus.interrupted), (SIGTERM, ExitStatus.terminated)] {
            let report = temporaryPath("interrupted.json")
            defer { unlink(report) }
            let outcome = try wirelens(["probe", servers.target("/delay/400"), "--repeat", "50", "--format", "json",
                                        "--report", report, "-q"], timeout: 30) { pid in
                usleep(1_500_000)
                kill(pid, signal)
            }
            XCTAssertEqual(outcome.status, code.rawValue, outcome.stderr)
            XCTAssertEqual(code.rawValue, 128 + signal, "the shell's convention")
            let decoded = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
            XCTAssertTrue(decoded.interrupted)
            XCTAssertGreaterThanOrEqual(decoded.tasks.filter(\.succeeded).count, 2)
            XCTAssertLessThan(decoded.tasks.count, 50)
            XCTAssertTrue(outcome.stderr.contains("interrupted"))
        }
    }

    /// Peak RSS (the kernel's ru_maxrss) of a `probe --repeat` run against nginx, in KiB: not a timing, and
    /// compared between two lengths of the same run rather than against a figure. GNU time forks the probe and
    /// reports it: a child spawned straight from this test process (vfork-style) would start from this process's
    /// own high-water mark.
    private func probeRun(repeat count: Int, format: String, report: String?, url: String) throws -> ProbeRun {
        let rss = temporaryPath("rss.txt")
        defer { unlink(rss) }
        var arguments = ["-f", "%M", "-o", rss, CLIHarness.binary,
                         "probe", url, "--repeat", "\(count)", "--concurrency", "8", "--format", format, "-q"]
        if let report { arguments += ["--report", report] }
        let outcome = try ProcessRunner.run("/usr/bin/time", arguments, timeout: 300)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let text = try String(contentsOfFile: rss, encoding: .utf8)
        let peak = try XCTUnwrap(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), text)
        return ProbeRun(peak: peak, stdout: outcome.stdout)
    }

    private struct ProbeRun {
        var peak: Int
        var stdout: String
    }

    func testProbeMemoryDoesNotGrowWithRepeat() throws {
        let servers = try TestServers.get()
        let url = servers.http("/small.txt")
        let report = temporaryPath("memory.json")
        defer { unlink(report) }
        // Every task held cost about 0.7 KiB: 15 000 more tasks grew the peak by 10 MiB or more.
        for (format, path) in [("text", nil), ("json", report)] as [(String, String?)] {
            let short = try probeRun(repeat: 5_000, format: format, report: path, url: url)
            let long = try probeRun(repeat: 20_000, format: format, report: path, url: url)
            print("probe --format \(format) peak RSS: \(short.peak) KiB at 5000 tasks, \(long.peak) KiB at 20000")
            XCTAssertLessThan(long.peak - short.peak, 4 * 1024,
                              "\(format): peak RSS \(short.peak) KiB at 5000 tasks, \(long.peak) KiB at 20000")
            if format == "text" { XCTAssertTrue(long.stdout.contains("20000 ok, 0 failed of 20000"), long.stdout) }
        }
        // The streamed document of the 20 000 tasks, checked by python: every task once, in task order, and
        // the summary's counts and percentiles against python's own over the tasks.
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys
            doc = json.load(open(sys.argv[1]))
            tasks = doc["tasks"]
            assert [t["index"] for t in tasks] == list(range(20000)), "tasks in task order"
            s = doc["summary"]
            assert s["tasks"] == 20000 and s["succeeded"] == 20000, s
            statuses = {}
            for t in tasks: statuses[str(t["statusCode"])] = statuses.get(str(t["statusCode"]), 0) + 1
            assert s["statusCodes"] == statuses, (s["statusCodes"], statuses)
            assert s["transactions"] == sum(len(t["transactions"]) for t in tasks)
            reused = sum(1 for t in tasks for x in t["transactions"] if x["reusedConnection"])
            assert s["connections"]["reused"] == reused, (s["connections"], reused)
            ids = {x["connectionId"] for t in tasks for x in t["transactions"]}
            assert s["connections"]["distinct"] == len(ids), (s["connections"], len(ids))
            totals = sorted(x["phasesMs"]["total"] for t in tasks for x in t["transactions"])
            def q(p):
                r = p * (len(totals) - 1); lo = int(r); hi = min(lo + 1, len(totals) - 1)
                return totals[lo] + (totals[hi] - totals[lo]) * (r - lo)
            stats = s["phases"]["total"]
            assert stats["count"] == len(totals) and stats["min"] == totals[0] and stats["max"] == totals[-1]
            for key, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
                # 1/256 relative, plus the 0.001 ms the document's rounding to microseconds may add
                assert abs(stats[key] - q(p)) <= q(p) / 256 + 0.001, (key, stats[key], q(p))
            assert set(doc) >= {"endedAt", "interrupted", "caveats", "configuration"}
            print("ok")
            """, report])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok", check.stderr)
    }

    func testSIGINTEndsAStreamedReportWithWhatWasGathered() throws {
        let servers = try TestServers.get()
        let report = temporaryPath("interrupted-stream.json")
        defer { unlink(report) }
        // 5000 tasks planned: more than 1000, so the JSON is written as the run goes.
        let outcome = try wirelens(["probe", servers.target("/delay/400"), "--repeat", "5000", "--concurrency", "4",
                                    "--format", "json", "--report", report, "-q"], timeout: 30) { pid in
            usleep(1_500_000)
            kill(pid, SIGINT)
        }
        XCTAssertEqual(outcome.status, ExitStatus.interrupted.rawValue, outcome.stderr)
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys
            doc = json.load(open(sys.argv[1]))
            n = len(doc["tasks"])
            assert doc["interrupted"] is True
            assert 4 <= n < 5000, n
            assert [t["index"] for t in doc["tasks"]] == list(range(n))
            assert doc["summary"]["tasks"] == n, (doc["summary"]["tasks"], n)
            print("ok")
            """, report])
        XCTAssertEqual(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok", check.stderr)
        XCTAssertTrue(outcome.stderr.contains("interrupted"))
    }

    func testStreamedReportThatCannotBeWrittenStopsTheRun() throws {
        let servers = try TestServers.get()
        // /dev/full takes no byte (ENOSPC): the report's head already fails, before 100 000 tasks would run.
        let outcome = try wirelens(["probe", servers.http("/small.txt"), "--repeat", "100000", "--format", "json",
                                    "--report", "/dev/full"], timeout: 30)
        XCTAssertEqual(outcome.status, ExitStatus.localFile.rawValue, outcome.stderr)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("/dev/full"), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "", "the tasks are gone: nothing is written instead")
    }
}
