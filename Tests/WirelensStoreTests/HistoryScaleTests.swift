import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensStore

/// The check history at scale: reading one check since a time and retention are ranges of the key however many
/// rows the file holds (sqlite3's query plans and counts are the oracle), results handed to the writer are all
/// stored, and a database made by the first schema is migrated with its rows.
final class HistoryScaleTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-history-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new database with Wirelens' schema, closed again.
    private func newDatabase(_ name: String) throws -> String {
        let path = directory + "/" + name
        _ = try CheckHistory(path: path)
        return path
    }

    /// sqlite3's plan of a statement.
    private func plan(_ path: String, _ sql: String) throws -> String {
        try HistoryFixture.sqlite(path, "EXPLAIN QUERY PLAN " + sql)
    }

    /// 2,000,000 rows (200 checks × 10,000 runs): both reads `wirelens history` makes search the primary key
    /// (one check's range, or each name's range) and never scan the runs; one check's runs since a time are the
    /// ones sqlite3 counts, with the values sqlite3 reads.
    func testReadingSinceATimeSearchesTheKeyInMillionsOfRows() throws {
        let path = try newDatabase("big.sqlite")
        let start: Int64 = 1_700_000_000_000_000
        try HistoryFixture.fill(path, checks: 200, runs: 10_000, start: start, step: 60_000_000)
        XCTAssertEqual(try HistoryFixture.integer(path, "SELECT count(*) FROM check_result"), 2_000_000)

        let one = try plan(path, HistorySchema.checkSinceSQL)
        XCTAssertTrue(one.contains("SEARCH check_result USING PRIMARY KEY (checkId=? AND startedAt>?)"), one)
        let all = try plan(path, HistorySchema.allSinceSQL)
        XCTAssertTrue(all.contains("SEARCH check_result USING PRIMARY KEY (checkId=? AND startedAt>?)"), all)
        for text in [one, all] {
            XCTAssertFalse(text.contains("SCAN check_result"), text)
        }

        let since = start + 9_000 * 60_000_000
        let entries = try CheckHistory(path: path).entries(check: "check-7", since: since)
        XCTAssertEqual(Int64(entries.count), try HistoryFixture.runs(path, prefix: "check-7", from: since))
        XCTAssertEqual(Int64(entries.filter { !$0.passed }.count),
                       try HistoryFixture.runs(path, prefix: "check-7", from: since, failed: true))
        let first = try HistoryFixture.sqlite(path, """
            SELECT startedAt, passed, statusCode, connect, total, downloadSpeed FROM check_result
            WHERE checkId = (SELECT id FROM check_name WHERE name = 'check-7') AND startedAt >= \(since)
            ORDER BY startedAt LIMIT 1
            """).trimmingCharacters(in: .whitespacesAndNewlines)
        let mine = entries.first.map {
            "\($0.startedAt)|\($0.passed ? 1 : 0)|\($0.statusCode ?? -1)|\($0.connect ?? -1)|\($0.total ?? -1)|"
                + "\(Int64($0.downloadSpeed ?? -1))"
        }
        XCTAssertEqual(mine, first)
        XCTAssertEqual(entries.map(\.startedAt), entries.map(\.startedAt).sorted(), "oldest first")
    }

    /// Retention removes exactly the runs before the cut, at most `limit` per transaction, and none after it:
    /// sqlite3 counts both sides after every batch.
    func testRetentionRemovesExactlyTheRowsBeforeTheCutInBoundedBatches() throws {
        let path = try newDatabase("prune.sqlite")
        let start: Int64 = 1_700_000_000_000_000
        try HistoryFixture.fill(path, checks: 40, runs: 5_000, start: start, step: 60_000_000)
        // Between two runs of every check, not on one.
        let cut = start + 3_210 * 60_000_000 + 30_000_000
        let old = try HistoryFixture.runs(path, to: cut)
        let young = try HistoryFixture.runs(path, from: cut)
        XCTAssertEqual(old, 40 * 3_211)
        XCTAssertEqual(old + young, 200_000)

        let history = try CheckHistory(path: path)
        var removed: Int64 = 0
        for _ in 0..<(old / 25_000 + 3) {
            let batch = try history.removeOlder(than: cut, limit: 25_000)
            XCTAssertLessThanOrEqual(batch, 25_000)
            removed += Int64(batch)
            XCTAssertEqual(try HistoryFixture.runs(path, to: cut), old - removed, "after a batch of \(batch)")
            XCTAssertEqual(try HistoryFixture.runs(path, from: cut), young, "nothing at or after the cut")
            if batch < 25_000 { break }
        }
        XCTAssertEqual(removed, old)
        XCTAssertEqual(try HistoryFixture.runs(path, to: cut), 0)
        XCTAssertEqual(try history.removeOlder(than: cut, limit: 25_000), 0)
    }

    /// The writer stores every result handed to it (several batches) and, with a retention window, removes the
    /// runs older than it: sqlite3 counts them once it has finished.
    func testTheWriterStoresEveryResultAndRemovesTheOldOnes() throws {
        let path = try newDatabase("writer.sqlite")
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        var policy = HistoryWriter.Policy(keep: 3_600_000_000)
        policy.batchSize = 300
        policy.pruneBatch = 500
        policy.pruneEvery = 20_000
        let writer = HistoryWriter(history: try CheckHistory(path: path), policy: policy) { trouble in
            XCTFail("\(trouble)")
        }
        for i in 0..<2_000 {
            writer.add(HistoryEntry(check: "young-\(i % 10)", startedAt: now - Int64(i) * 1_000_000, passed: true,
                                    total: 1_000))
            writer.add(HistoryEntry(check: "old-\(i % 10)", startedAt: now - 7_200_000_000 + Int64(i), passed: false))
        }
        for _ in 0..<200 where (try? HistoryFixture.runs(path, prefix: "old-%")) != 0 {
            usleep(50_000)
        }
        writer.finish()
        XCTAssertFalse(writer.failed)
        XCTAssertEqual(try HistoryFixture.runs(path, prefix: "young-%"), 2_000)
        XCTAssertEqual(try HistoryFixture.runs(path, prefix: "old-%"), 0)
    }

    /// A database main's schema (v1) made, closed or left in its WAL, with two runs of one check in the same µs:
    /// opening it migrates every row (the second of the pair one µs later, speeds rounded to whole bytes per second)
    /// into the compact table, which sqlite3 then shows without a rowid and without the v1 index.
    func testADatabaseOfTheFirstSchemaIsMigrated() throws {
        try assertMigrates(ending: "db.close()")
    }

    func testADatabaseOfTheFirstSchemaLeftInItsWALIsMigrated() throws {
        try assertMigrates(ending: "import os; os._exit(0)")
    }

    private func assertMigrates(ending: String) throws {
        let path = directory + "/v1.sqlite"
        // The statements GRDB ran for main's v1 migration (read back from a database main's binary made).
        let made = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("PRAGMA journal_mode = WAL")
            db.executescript('''
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                CREATE TABLE "check_result" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "check" TEXT NOT NULL,
                  "startedAt" INTEGER NOT NULL, "passed" BOOLEAN NOT NULL, "statusCode" INTEGER, "errorClass" TEXT,
                  "queue" INTEGER, "dns" INTEGER, "connect" INTEGER, "tls" INTEGER, "send" INTEGER, "wait" INTEGER,
                  "receive" INTEGER, "ttfb" INTEGER, "total" INTEGER, "retries" INTEGER NOT NULL,
                  "reused" BOOLEAN NOT NULL, "uploadSpeed" DOUBLE, "downloadSpeed" DOUBLE);
                CREATE INDEX "check_result_by_check_time" ON "check_result"("check", "startedAt");
            ''')
            rows = [
                ("api", 1000, 1, 200, None, 3, 40, 50, 60, 7, 80, 9, 90, 300, 0, 0, None, 1234.6),
                ("api", 1000, 0, None, "timeout.idle", None, 41, None, None, None, None, None, None, 10000000, 2, 0, None, None),
                ("web", 1000, 1, 204, None, 1, None, None, None, 2, 3, 4, 5, 11, 0, 1, 99.4, 1e9),
                ("api", 2000, 1, 200, None, 3, 40, 50, 60, 7, 80, 9, 90, 301, 1, 1, 0.2, 5.5),
            ]
            db.executemany('INSERT INTO check_result ("check", startedAt, passed, statusCode, errorClass, queue, dns, '
                           'connect, tls, send, wait, receive, ttfb, total, retries, reused, uploadSpeed, downloadSpeed) '
                           'VALUES (' + ','.join('?' * 18) + ')', rows)
            db.commit()
            \(ending)
            """, path])
        XCTAssertEqual(made.status, 0, made.stderr)

        let entries = try CheckHistory(path: path).entries(since: 0)
        let expected = [
            HistoryEntry(check: "api", startedAt: 1000, passed: true, statusCode: 200, queue: 3, dns: 40, connect: 50,
                         tls: 60, send: 7, wait: 80, receive: 9, ttfb: 90, total: 300, downloadSpeed: 1235),
            HistoryEntry(check: "web", startedAt: 1000, passed: true, statusCode: 204, queue: 1, send: 2, wait: 3,
                         receive: 4, ttfb: 5, total: 11, reused: true, uploadSpeed: 99, downloadSpeed: 1e9),
            HistoryEntry(check: "api", startedAt: 1001, passed: false, errorClass: "timeout.idle", dns: 41,
                         total: 10_000_000, retries: 2),
            HistoryEntry(check: "api", startedAt: 2000, passed: true, statusCode: 200, queue: 3, dns: 40, connect: 50,
                         tls: 60, send: 7, wait: 80, receive: 9, ttfb: 90, total: 301, retries: 1, reused: true,
                         uploadSpeed: 0, downloadSpeed: 6),
        ]
        XCTAssertEqual(entries.sorted { ($0.startedAt, $0.check) < ($1.startedAt, $1.check) }, expected)
        let schema = try HistoryFixture.sqlite(path, ".schema check_result")
        XCTAssertTrue(schema.contains("WITHOUT ROWID"), schema)
        XCTAssertFalse(try HistoryFixture.sqlite(path, ".indexes").contains("check_result_by_check_time"))
        XCTAssertEqual(try HistoryFixture.sqlite(path, "SELECT identifier FROM grdb_migrations ORDER BY identifier"),
                       "v1\nv2-compact\nv3-vantage\n")
        XCTAssertEqual(try HistoryFixture.sqlite(path, "PRAGMA integrity_check"), "ok\n")
    }
}
