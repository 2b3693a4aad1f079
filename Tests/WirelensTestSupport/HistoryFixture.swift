import Foundation

/// Check history databases filled and read by the sqlite3 tool, the tests' independent view of the file.
public enum HistoryFixture {
    /// Runs SQL through the sqlite3 tool on the database at `path`; its stdout, or an error with its stderr.
    @discardableResult
    public static func sqlite(_ path: String, _ sql: String, timeout: TimeInterval = 60) throws -> String {
        // A busy timeout: Wirelens may be writing (WAL lets it read meanwhile, but a checkpoint can hold it briefly).
        let outcome = try ProcessRunner.run("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", path, sql], timeout: timeout)
        guard outcome.status == 0, !outcome.stderr.contains("Error") else {
            throw TestServerError(message: "sqlite3 failed (\(outcome.status)): \(outcome.stderr)")
        }
        return outcome.stdout
    }

    /// The one integer a query answers, as sqlite3 prints it.
    public static func integer(_ path: String, _ sql: String) throws -> Int64 {
        let text = try sqlite(path, sql).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int64(text) else { throw TestServerError(message: "sqlite3 answered '\(text)' to \(sql)") }
        return value
    }

    /// Adds `runs` runs of each of `checks` checks named `PREFIX-1` … `PREFIX-N` to a database Wirelens created
    /// (schema v2), in one transaction generated in SQL (2,000,000 rows in about 1.5 s of CPU): run j of check i
    /// starts at `start + j × step + i` µs; every 50th run failed (status 503, `http`), the others passed (200)
    /// with a total of 600 + j % 300 µs.
    public static func fill(_ path: String, prefix: String = "check", checks: Int, runs: Int, start: Int64,
                            step: Int64) throws {
        try sqlite(path, """
            PRAGMA synchronous = OFF;
            BEGIN;
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < \(checks))
            INSERT INTO check_name (name) SELECT '\(prefix)-' || i FROM c;
            WITH RECURSIVE t(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM t WHERE j < \(runs - 1))
            INSERT INTO check_result (checkId, startedAt, passed, statusCode, errorClass, queue, dns, connect, tls,
                                      send, wait, receive, ttfb, total, retries, reused, uploadSpeed, downloadSpeed)
            SELECT n.id, \(start) + j * \(step) + CAST(substr(n.name, \(prefix.count + 2)) AS INTEGER),
                   j % 50 != 0, CASE WHEN j % 50 = 0 THEN 503 ELSE 200 END,
                   CASE WHEN j % 50 = 0 THEN 'http' END, 5, NULL, 120 + j % 7, NULL, 30, 400 + j % 300, 25,
                   560 + j % 300, 600 + j % 300, 0, 0, NULL, 123456
            FROM check_name n CROSS JOIN t WHERE n.name LIKE '\(prefix)-%' ORDER BY n.id, j;
            COMMIT;
            """, timeout: 120)
    }

    /// The number of runs of the checks whose names start with `prefix` in [from, to) µs, counted by sqlite3.
    public static func runs(_ path: String, prefix: String = "%", from: Int64 = .min, to: Int64 = .max,
                            failed: Bool? = nil) throws -> Int64 {
        let outcome = failed.map { " AND passed = \($0 ? 0 : 1)" } ?? ""
        return try integer(path, """
            SELECT count(*) FROM check_result JOIN check_name ON check_name.id = check_result.checkId
            WHERE check_name.name LIKE '\(prefix)' AND startedAt >= \(from) AND startedAt < \(to)\(outcome)
            """)
    }
}
