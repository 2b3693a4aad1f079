import GRDB

/// The check history's tables, versioned as GRDB migrations, and the statements that read and write them.
///
/// v1 (the first release) kept one rowid row per run with the check's name in each. v2 is sized for a year of
/// 2,000 checks a minute (2,000 × 525,600 ≈ 1.05 billion rows): names are interned in `check_name`, and
/// `check_result` is a WITHOUT ROWID table clustered on its primary key (checkId, startedAt), so that one check's
/// runs since a time are one range of the key (`history CHECK --since`), its oldest runs another (retention), and
/// no separate index repeats the key. Times and phases are integer µs, speeds whole bytes per second (SQLite
/// stores small integers in 1 to 4 bytes, 0 and 1 in none): about 40 to 70 bytes a row.
enum HistorySchema {
    /// The columns of `check_result` after the key, in the order `insertSQL` and `columnsSQL` use.
    static let valueColumns = ["passed", "statusCode", "errorClass"] + HistoryEntry.phaseNames
        + ["retries", "reused", "uploadSpeed", "downloadSpeed", "vantage"]

    /// The migrations, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // As the first release made it (GRDB's table DSL); applied migrations are never edited.
        migrator.registerMigration("v1") { db in
            try db.create(table: "check_result") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("check", .text).notNull()
                t.column("startedAt", .integer).notNull()
                t.column("passed", .boolean).notNull()
                t.column("statusCode", .integer)
                t.column("errorClass", .text)
                for phase in HistoryEntry.phaseNames { t.column(phase, .integer) }
                t.column("retries", .integer).notNull()
                t.column("reused", .boolean).notNull()
                t.column("uploadSpeed", .double)
                t.column("downloadSpeed", .double)
            }
            try db.create(index: "check_result_by_check_time", on: "check_result", columns: ["check", "startedAt"])
        }
        migrator.registerMigration("v2-compact") { db in
            try db.execute(sql: v2)
        }
        // The vantage point of the instance that ran the check (`--vantage`); rows before it have none.
        migrator.registerMigration("v3-vantage") { db in
            try db.execute(sql: "ALTER TABLE check_result ADD COLUMN vantage TEXT")
        }
        return migrator
    }

    /// v1 to v2: interns the names and copies the runs into the clustered table (two runs of one check in the same
    /// µs, which v1 allowed, become consecutive µs), then drops the v1 table and its index.
    static let v2 = """
        CREATE TABLE check_name (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        INSERT INTO check_name (name) SELECT DISTINCT "check" FROM check_result ORDER BY "check";
        CREATE TABLE check_result_v2 (checkId INTEGER NOT NULL, startedAt INTEGER NOT NULL, passed INTEGER NOT NULL, \
        statusCode INTEGER, errorClass TEXT, queue INTEGER, dns INTEGER, connect INTEGER, tls INTEGER, \
        send INTEGER, wait INTEGER, receive INTEGER, ttfb INTEGER, total INTEGER, retries INTEGER NOT NULL, \
        reused INTEGER NOT NULL, uploadSpeed INTEGER, downloadSpeed INTEGER, \
        PRIMARY KEY (checkId, startedAt)) WITHOUT ROWID;
        INSERT OR IGNORE INTO check_result_v2 SELECT n.id, \
        r.startedAt + ROW_NUMBER() OVER (PARTITION BY r."check", r.startedAt ORDER BY r.id) - 1, \
        r.passed, r.statusCode, r.errorClass, r.queue, r.dns, r.connect, r.tls, r.send, r.wait, r.receive, r.ttfb, \
        r.total, r.retries, r.reused, CAST(ROUND(r.uploadSpeed) AS INTEGER), CAST(ROUND(r.downloadSpeed) AS INTEGER) \
        FROM check_result r JOIN check_name n ON n.name = r."check";
        DROP TABLE check_result;
        ALTER TABLE check_result_v2 RENAME TO check_result;
        """

    /// The value columns, comma-separated.
    static let columnsSQL = valueColumns.joined(separator: ", ")

    /// One run; the insert does nothing when the check already has a run at that µs.
    static let insertSQL = "INSERT INTO check_result (checkId, startedAt, \(columnsSQL)) VALUES (?, ?, "
        + Array(repeating: "?", count: valueColumns.count).joined(separator: ", ") + ") ON CONFLICT DO NOTHING"

    /// One check's runs at or after a time, oldest first: a range of the primary key.
    static let checkSinceSQL = "SELECT startedAt, \(columnsSQL) FROM check_result "
        + "WHERE checkId = ? AND startedAt >= ? ORDER BY startedAt"

    /// Every check's runs at or after a time: per name, a range of the primary key (CROSS JOIN keeps check_name
    /// the outer loop), oldest first.
    static let allSinceSQL = "SELECT check_name.name, startedAt, \(columnsSQL) FROM check_name "
        + "CROSS JOIN check_result ON check_result.checkId = check_name.id WHERE startedAt >= ? ORDER BY startedAt"

    /// The time of the `offset`-th oldest run of one check before a time (nil when it has fewer): where a bounded
    /// batch of retention ends.
    static let batchEndSQL = "SELECT startedAt FROM check_result WHERE checkId = ? AND startedAt < ? "
        + "ORDER BY startedAt LIMIT 1 OFFSET ?"

    /// One check's runs before a time: a range of the primary key.
    static let deleteBeforeSQL = "DELETE FROM check_result WHERE checkId = ? AND startedAt < ?"
}
