import Foundation
import WirelensCore
import WirelensStore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// The history at scale, end to end: `history CHECK --since` over millions of rows, `--history-keep` on `check` and
/// `serve` (the rows sqlite3 counts on either side of the cut), and its bad values.
final class HistoryKeepTests: XCTestCase {
    private let hour: Int64 = 3_600_000_000

    private func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(CheckCommandTests.binary, arguments, timeout: timeout)
    }

    /// A new history database (Wirelens' schema), closed again.
    private func newDatabase() throws -> String {
        let path = CheckCommandTests.temporaryPath("history.sqlite")
        _ = try CheckHistory(path: path)
        return path
    }

    private var now: Int64 { Int64(Date().timeIntervalSince1970 * 1e6) }

    /// 2,000,000 runs (200 checks × 10,000, one a second up to now): `history check-7 --since 1h` reads the
    /// check's key range (sqlite3's plan of the statement it runs) and reports as many runs and failures in each
    /// window as sqlite3 counts.
    func testHistorySinceOverMillionsOfRows() throws {
        let database = try newDatabase()
        defer { CheckCommandTests.removeDatabase(database) }
        let step: Int64 = 1_000_000
        let start = now - 10_000 * step - 1_000
        try HistoryFixture.fill(database, checks: 200, runs: 10_000, start: start, step: step)
        let plan = try HistoryFixture.sqlite(database, """
            EXPLAIN QUERY PLAN SELECT startedAt, passed FROM check_result
            WHERE checkId = (SELECT id FROM check_name WHERE name = 'check-7') AND startedAt >= 0 ORDER BY startedAt
            """)
        XCTAssertTrue(plan.contains("SEARCH check_result USING PRIMARY KEY (checkId=? AND startedAt>?)"), plan)

        let before = now
        let outcome = try run(["history", "--history", database, "--since", "1h", "check-7"])
        let end = now
        XCTAssertTrue([0, 1].contains(outcome.status), outcome.stderr)
        // "check-7: N runs (F failed) against M (G failed)"
        let line = outcome.stdout.split(separator: "\n").first { $0.hasPrefix("check-7: ") }.map(String.init) ?? ""
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
        XCTAssertEqual(numbers.count, 5, outcome.stdout)  // the 7 of the name, then the four counts
        guard numbers.count == 5 else { return }
        // The windows end when the command read its clock, between `before` and `end`: each count lies between
        // sqlite3's for the narrowest and the widest window that clock reading allows.
        for (index, failed) in [(1, nil), (2, true)] as [(Int, Bool?)] {
            let low = try HistoryFixture.runs(database, prefix: "check-7", from: end - hour, failed: failed)
            let high = try HistoryFixture.runs(database, prefix: "check-7", from: before - hour, failed: failed)
            XCTAssertTrue((low...high).contains(numbers[index]), "\(line): sqlite3 counts \(low)...\(high)")
        }
        for (index, failed) in [(3, nil), (4, true)] as [(Int, Bool?)] {
            let low = try HistoryFixture.runs(database, prefix: "check-7", from: end - 2 * hour, to: before - hour,
                                              failed: failed)
            let high = try HistoryFixture.runs(database, prefix: "check-7", from: before - 2 * hour, to: end - hour,
                                               failed: failed)
            XCTAssertTrue((low...high).contains(numbers[index]), "\(line): sqlite3 counts \(low)...\(high)")
        }
        let current = numbers[1]
        XCTAssertGreaterThan(current, 3_000, line)
    }

    /// A history with runs of other checks on both sides of a one-hour cut: after one round of `check
    /// --history-keep 1h` the older ones are gone, the younger ones all there, and the round's own stored.
    func testCheckHistoryKeepRemovesExactlyTheOlderRows() throws {
        let s = try TestServers.get()
        let config = try CheckCommandTests.writeConfig(CheckCommandTests.passingConfig(s))
        let database = try newDatabase()
        defer { unlink(config); CheckCommandTests.removeDatabase(database) }
        try fillAroundTheCut(database)
        let young = try HistoryFixture.runs(database, prefix: "other-%")
        XCTAssertEqual(young, 30 * 500)

        let outcome = try run(["check", config, "--history", database, "--history-keep", "1h"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "other-%"), young, "only the older runs went")
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "old-%"), 0)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "small"), 1)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "hops"), 1)
    }

    /// The same under `serve --history-keep 1h`: it removes the older runs while it serves.
    func testServeHistoryKeepRemovesExactlyTheOlderRows() throws {
        let s = try TestServers.get()
        let config = try CheckCommandTests.writeConfig("checks:\n  - name: small\n    url: \(s.http("/small.txt"))\n")
        let database = try newDatabase()
        defer { unlink(config); CheckCommandTests.removeDatabase(database) }
        try fillAroundTheCut(database)
        let young = try HistoryFixture.runs(database, prefix: "other-%")
        let serve = try ServerProcess(CheckCommandTests.binary, ["serve", "--config", config, "--listen", "127.0.0.1:0",
                                                                 "--history", database, "--history-keep", "1h"])
        XCTAssertNotNil(serve.announcedPort(), serve.stderr)
        for _ in 0..<200 where (try? HistoryFixture.runs(database, prefix: "old-%")) != 0 {
            usleep(100_000)
        }
        XCTAssertEqual(serve.stop(), 0, serve.stderr)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "old-%"), 0)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "other-%"), young)
    }

    /// 60,000 runs more than 1h10m old (checks `old-1` … `old-30`, one a second) and 15,000 younger than 50 minutes
    /// (`other-1` … `other-30`): none within ten minutes of the one-hour cut, whenever the command reads its clock.
    private func fillAroundTheCut(_ database: String) throws {
        try HistoryFixture.fill(database, prefix: "old", checks: 30, runs: 2_000,
                                start: now - 2 * hour, step: 1_000_000)
        try HistoryFixture.fill(database, prefix: "other", checks: 30, runs: 500,
                                start: now - hour + 10 * 60_000_000, step: 1_000_000)
        XCTAssertEqual(try HistoryFixture.runs(database, prefix: "old-%", from: now - hour - 10 * 60_000_000), 0)
    }

    /// `--history-keep` takes a positive duration (a bare number is seconds): 0, negative or not a duration is one
    /// line naming the flag and the value, exit 2, on `check` and `serve` alike; 90d is taken.
    func testBadHistoryKeepValues() throws {
        let s = try TestServers.get()
        let config = try CheckCommandTests.writeConfig(CheckCommandTests.passingConfig(s))
        let database = CheckCommandTests.temporaryPath("history.sqlite")
        defer { unlink(config); CheckCommandTests.removeDatabase(database) }
        let refusals = ["0": "must be greater than 0", "-5d": "must be greater than 0", "0s": "must be greater than 0",
                        "x": "is not a duration"]
        for (value, reason) in refusals.sorted(by: { $0.key < $1.key }) {
            for command in [["check", config], ["serve", "--config", config, "--listen", "127.0.0.1:0"]] {
                let outcome = try run(command + ["--history", database, "--history-keep=\(value)"], timeout: 30)
                XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, "\(command[0]) \(value): \(outcome.stderr)")
                let lines = outcome.stderr.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, outcome.stderr)
                XCTAssertTrue(lines.first?.contains("--history-keep '\(value)' \(reason)") ?? false, outcome.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: database), "refused before the history was opened")
        let taken = try run(["check", config, "--history", database, "--history-keep", "90d"])
        XCTAssertEqual(taken.status, 0, taken.stderr)
    }
}
