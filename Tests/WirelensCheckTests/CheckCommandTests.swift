import Foundation
import WirelensCore
import WirelensStore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens check` end to end: exit codes, output, the schedule and SIGTERM, history that survives kill -9.
final class CheckCommandTests: XCTestCase {
    /// The executable under test (`WIRELENS_BIN` names another, e.g. main's, to see a new test fail there).
    static var binary: String { WirelensCLI.path }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString)-\(name)").path
    }

    /// Writes a configuration file and returns its path.
    static func writeConfig(_ text: String) throws -> String {
        let path = temporaryPath("checks.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Two checks against nginx that pass.
    static func passingConfig(_ s: TestServers) -> String {
        """
        checks:
          - name: small
            url: \(s.http("/small.txt"))
            expect: { status: 200, body_contains: hello, total: { max: 10s } }
          - name: hops
            url: \(s.http("/hops/2"))
            expect: { status: 200 }
        """
    }

    private func run(_ arguments: [String], timeout: TimeInterval = 60,
                     afterStart: ((pid_t) -> Void)? = nil) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(Self.binary, arguments, timeout: timeout, afterStart: afterStart)
    }

    func testExitCodesAndOutput() throws {
        let s = try TestServers.get()
        let good = try Self.writeConfig(Self.passingConfig(s))
        defer { unlink(good) }
        let passed = try run(["check", good, "--no-history"])
        XCTAssertEqual(passed.status, 0, passed.stderr)
        XCTAssertTrue(passed.stdout.contains("PASS  small  200"), passed.stdout)
        XCTAssertTrue(passed.stdout.contains("2 of 2 checks passed"), passed.stdout)

        let bad = try Self.writeConfig("""
            checks:
              - name: fine
                url: \(s.http("/small.txt"))
              - name: unavailable
                url: \(s.http("/status/503"))
                expect: { status: [200, 204] }
            """)
        defer { unlink(bad) }
        let failed = try run(["check", bad, "--no-history"])
        XCTAssertEqual(failed.status, ExitStatus.checkFailed.rawValue, failed.stderr)
        XCTAssertTrue(failed.stdout.contains("PASS  fine"), failed.stdout)
        XCTAssertTrue(failed.stdout.contains("FAIL  unavailable  503"), failed.stdout)
        XCTAssertTrue(failed.stdout.contains("  status: 503, limit one of 200, 204"), failed.stdout)

        let broken = try Self.writeConfig("checks:\n  - name: a\n    url: \(s.http("/"))\n    expect:\n      ttfb: { max: 5 parsecs }\n")
        defer { unlink(broken) }
        let usage = try run(["check", broken, "--no-history"])
        XCTAssertEqual(usage.status, ExitStatus.usage.rawValue)
        XCTAssertEqual(usage.stderr.split(separator: "\n").count, 1, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("\(broken):5: checks[0].expect.ttfb.max: '5 parsecs'"), usage.stderr)

        let unset = try Self.writeConfig("checks:\n  - name: a\n    url: \(s.http("/"))\n    headers: { Authorization: \"Bearer ${WL_UNSET_TOKEN_X}\" }\n")
        defer { unlink(unset) }
        let env = try run(["check", unset, "--no-history"])
        XCTAssertEqual(env.status, ExitStatus.usage.rawValue)
        XCTAssertTrue(env.stderr.contains("\(unset):4: checks[0].headers.Authorization: environment variable WL_UNSET_TOKEN_X"),
                      env.stderr)
        let missing = try run(["check", "/nonexistent/checks.yaml", "--no-history"])
        XCTAssertEqual(missing.status, ExitStatus.usage.rawValue)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/checks.yaml"), missing.stderr)
    }

    /// Secrets from the environment reach the server but no output: text, Prometheus, history.
    func testEnvironmentSecretsStayOutOfOutput() throws {
        let s = try TestServers.get()
        setenv("WL_CHECK_TEST_SECRET", "hunter2-secret", 1)
        defer { unsetenv("WL_CHECK_TEST_SECRET") }
        let config = try Self.writeConfig("""
            checks:
              - name: echo
                url: \(s.http("/echo/headers"))
                headers: { X-Trace: "${WL_CHECK_TEST_SECRET}" }
                expect: { body_contains: "x-trace=hunter2-secret" }
              - name: failing
                url: \(s.http("/status/503"))?token=${WL_CHECK_TEST_SECRET}
                headers: { Authorization: "Bearer ${WL_CHECK_TEST_SECRET}" }
            """)
        let database = Self.temporaryPath("history.sqlite")
        defer { unlink(config); Self.removeDatabase(database) }
        let text = try run(["check", config, "--history", database])
        XCTAssertEqual(text.status, ExitStatus.checkFailed.rawValue, text.stderr)
        XCTAssertTrue(text.stdout.contains("PASS  echo"), "the server got the substituted header: \(text.stdout)")
        let prometheus = try run(["check", config, "--format", "prometheus", "--no-history"])
        for output in [text.stdout, text.stderr, prometheus.stdout, prometheus.stderr] {
            XCTAssertFalse(output.contains("hunter2"), output)
        }
        for file in [database, database + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let stored = try String(decoding: Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
            XCTAssertTrue(stored.contains("failing") || file == database, "the rows are in the file read")
            XCTAssertFalse(stored.contains("hunter2"), file)
        }
    }

    /// `--every` runs rounds until SIGTERM, which ends it after the current round; every round's results are in
    /// the history (read while the checker writes).
    func testScheduleRunsRoundsAndStopsOnSIGTERM() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig(Self.passingConfig(s))
        let database = Self.temporaryPath("history.sqlite")
        defer { unlink(config); Self.removeDatabase(database) }
        var roundsSeenWhileRunning = 0
        let outcome = try run(["check", config, "--every", "150ms", "--history", database], timeout: 60) { pid in
            // Read the history while the checker writes it, until three rounds are in (bounded: 20 s).
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if FileManager.default.fileExists(atPath: database), let history = try? CheckHistory(path: database),
                   let count = try? history.count(), count >= 6 {
                    roundsSeenWhileRunning = count / 2
                    break
                }
                usleep(50_000)
            }
            kill(pid, SIGTERM)
        }
        XCTAssertGreaterThanOrEqual(roundsSeenWhileRunning, 3, "rounds stored while the checker ran")
        XCTAssertFalse(outcome.signaled, "SIGTERM ends it cleanly, not by the signal")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let rounds = outcome.stdout.components(separatedBy: "\nround ").count - (outcome.stdout.hasPrefix("round ") ? 0 : 1)
        XCTAssertGreaterThanOrEqual(rounds, 3, outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("stopped after \(rounds) rounds"), outcome.stderr)
        let history = try CheckHistory(path: database)
        XCTAssertEqual(try history.count(), 2 * rounds, "whole rounds only, each stored")
        let entries = try history.entries(since: 0)
        XCTAssertEqual(Set(entries.map(\.check)), ["small", "hops"])
        XCTAssertTrue(entries.allSatisfy(\.passed))
        XCTAssertTrue(entries.allSatisfy { $0.total != nil && $0.statusCode == 200 })
    }

    /// SIGTERM in the middle of a round lets the round finish: its results are printed and stored.
    func testSIGTERMMidRoundFinishesTheRound() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig("checks:\n  - name: slow\n    url: \(s.target("/delay/800"))\n")
        let database = Self.temporaryPath("history.sqlite")
        defer { unlink(config); Self.removeDatabase(database) }
        var signalledAt = Date()
        let outcome = try run(["check", config, "--every", "100ms", "--history", database], timeout: 60) { pid in
            // After the first round is stored, the second starts within ~110 ms and lasts ~800 ms: signal inside it.
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let history = try? CheckHistory(path: database), let count = try? history.count(), count >= 1 { break }
                usleep(20_000)
            }
            usleep(400_000)
            signalledAt = Date()
            kill(pid, SIGTERM)
        }
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.signaled)
        XCTAssertGreaterThan(Date().timeIntervalSince(signalledAt), 0.1, "it waited for the round in flight")
        XCTAssertTrue(outcome.stderr.contains("stopped after 2 rounds"), outcome.stderr)
        XCTAssertEqual(outcome.stdout.components(separatedBy: "PASS  slow").count - 1, 2, outcome.stdout)
        XCTAssertEqual(try CheckHistory(path: database).count(), 2, "the interrupted round was stored")
    }

    /// kill -9 while results are being written leaves a sound database with every committed round.
    func testHistorySurvivesKill9() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig(Self.passingConfig(s))
        let database = Self.temporaryPath("history.sqlite")
        defer { unlink(config); Self.removeDatabase(database) }
        let outcome = try run(["check", config, "--every", "10ms", "--history", database, "-q"], timeout: 60) { pid in
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let history = try? CheckHistory(path: database), let count = try? history.count(), count >= 20 { break }
                usleep(20_000)
            }
            kill(pid, SIGKILL)
        }
        XCTAssertTrue(outcome.signaled)
        let history = try CheckHistory(path: database)
        XCTAssertEqual(try history.integrityCheck(), "ok")
        let count = try history.count()
        XCTAssertGreaterThanOrEqual(count, 20)
        XCTAssertEqual(count % 2, 0, "a round's results are written in one transaction")

        let report = try run(["history", "--history", database, "--since", "1h", "small"])
        XCTAssertTrue([0, 1].contains(report.status), report.stderr)
        XCTAssertTrue(report.stdout.contains("small: \(count / 2) runs"), report.stdout)
        XCTAssertTrue(report.stdout.contains("total"), report.stdout)
        XCTAssertFalse(report.stdout.contains("hops"), "only the check asked for")
        let unknown = try run(["history", "--history", database, "nosuch"])
        XCTAssertEqual(unknown.status, ExitStatus.usage.rawValue)
    }

    /// A check without `timeout:` gets the documented default (10 s): against a server that answers after 15 s it
    /// fails with a total-timeout reason instead of waiting and passing.
    func testCheckWithoutTimeoutFailsAfterTheDefault() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig("checks:\n  - name: stalled\n    url: \(s.target("/delay/15000"))\n")
        defer { unlink(config) }
        let outcome = try run(["check", config, "--no-history"], timeout: 60)
        XCTAssertEqual(outcome.status, ExitStatus.checkFailed.rawValue, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("FAIL  stalled"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("longer than 10.00s (total timeout)"), outcome.stdout)
    }

    /// `defaults: { timeout: … }` at the top of the configuration replaces the default for checks without their own.
    func testConfigDefaultsTimeout() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig("""
            defaults: { timeout: 1s }
            checks:
              - name: stalled
                url: \(s.target("/delay/5000"))
              - name: patient
                url: \(s.target("/delay/1500"))
                timeout: 4s
            """)
        defer { unlink(config) }
        let outcome = try run(["check", config, "--no-history"], timeout: 60)
        XCTAssertEqual(outcome.status, ExitStatus.checkFailed.rawValue, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("FAIL  stalled"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("longer than 1.00s (total timeout)"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("PASS  patient  200"), "its own timeout wins: \(outcome.stdout)")
    }

    /// Garbage bytes in place of the history database: the checks still run, print and export their results; the
    /// history problem is one warning line naming the file and what to do, with its own exit code (a failed check
    /// still exits 1).
    func testCorruptHistoryStillRunsTheChecks() throws {
        let s = try TestServers.get()
        let good = try Self.writeConfig(Self.passingConfig(s))
        let bad = try Self.writeConfig("checks:\n  - name: unavailable\n    url: \(s.http("/status/503"))\n")
        let database = Self.temporaryPath("history.sqlite")
        let prom = Self.temporaryPath("wirelens.prom")
        defer { unlink(good); unlink(bad); unlink(prom); Self.removeDatabase(database) }
        let garbage = Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })
        try garbage.write(to: URL(fileURLWithPath: database))

        let text = try run(["check", good, "--history", database])
        XCTAssertEqual(text.status, ExitStatus.historyUnavailable.rawValue, text.stderr)
        XCTAssertTrue(text.stdout.contains("PASS  small  200"), text.stdout)
        XCTAssertTrue(text.stdout.contains("2 of 2 checks passed"), text.stdout)
        let lines = text.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, text.stderr)
        XCTAssertTrue(text.stderr.contains("'\(database)'"), text.stderr)
        XCTAssertTrue(text.stderr.contains("move it away"), text.stderr)

        let exported = try run(["check", good, "--history", database, "--format", "prometheus", "--report", prom, "-q"])
        XCTAssertEqual(exported.status, ExitStatus.historyUnavailable.rawValue, exported.stderr)
        let file = try String(contentsOfFile: prom, encoding: .utf8)
        XCTAssertTrue(file.contains("probe_success{check=\"small\"} 1"), file)
        XCTAssertTrue(file.contains("probe_success{check=\"hops\"} 1"), file)
        XCTAssertEqual(exported.stderr.split(separator: "\n").count, 1, exported.stderr)

        let failed = try run(["check", bad, "--history", database])
        XCTAssertEqual(failed.status, ExitStatus.checkFailed.rawValue, "a failed check wins: \(failed.stderr)")
        XCTAssertTrue(failed.stdout.contains("FAIL  unavailable  503"), failed.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), garbage, "the damaged file is left alone")
    }

    /// History writes that start failing under `--every` (SQLite refuses them: a trigger the test adds with the
    /// sqlite3 tool) are one warning line, not one per round, and the exit code says the history was not stored.
    func testHistoryWriteFailuresWarnOnce() throws {
        let s = try TestServers.get()
        let config = try Self.writeConfig(Self.passingConfig(s))
        let database = Self.temporaryPath("history.sqlite")
        defer { unlink(config); Self.removeDatabase(database) }
        var trigger: ProcessRunner.Outcome?
        let outcome = try run(["check", config, "--every", "100ms", "--history", database], timeout: 60) { pid in
            for _ in 0..<400 {
                if let history = try? CheckHistory(path: database), let count = try? history.count(), count >= 2 { break }
                usleep(50_000)
            }
            trigger = try? ProcessRunner.run("/usr/bin/sqlite3", [database, """
                CREATE TRIGGER refuse BEFORE INSERT ON check_result BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
                """], timeout: 30)
            usleep(1_000_000)  // some rounds (about 100 ms each) meet the trigger
            kill(pid, SIGTERM)
        }
        XCTAssertEqual(trigger?.status, 0, trigger?.stderr ?? "sqlite3 did not run")
        XCTAssertEqual(outcome.status, ExitStatus.historyUnavailable.rawValue, outcome.stderr)
        let rounds = outcome.stdout.components(separatedBy: "PASS  small").count - 1
        let stored = try CheckHistory(path: database).count() / 2
        XCTAssertGreaterThanOrEqual(rounds - stored, 2, "rounds ran without being stored: \(outcome.stdout)")
        let warnings = outcome.stderr.split(separator: "\n").filter { $0.contains(database) }
        XCTAssertEqual(warnings.count, 1, outcome.stderr)
        XCTAssertTrue(warnings.first?.contains("refused by the test") ?? false, outcome.stderr)
    }

    /// Removes a SQLite database with its WAL and shared-memory files.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
