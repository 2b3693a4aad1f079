import Foundation
import GRDB
import Synchronization

/// The check history database: every check result, in SQLite through a GRDB DatabasePool.
///
/// WAL journal mode (a DatabasePool's default), so readers (`wirelens history`) work while a writer (`check
/// --every`, `serve`) runs, and a write interrupted by kill -9 leaves the last committed state.
public final class CheckHistory: Sendable {
    private let pool: DatabasePool
    /// The database file.
    public let path: String
    /// The trouble of the last write, when it failed.
    private let lastTrouble = Mutex<HistoryTrouble?>(nil)

    /// What became of a `store`.
    public enum Outcome: Sendable, Equatable {
        case stored
        /// Not stored; `report` is the trouble when it is new (the first failed write, or another reason than the
        /// last one), nil when it was already reported.
        case failed(report: HistoryTrouble?)
    }

    /// Opens (creating if needed) the database at `path`, with its directory; a file that cannot be used (damaged,
    /// not a database, not writable) throws HistoryTrouble.
    public init(path: String) throws(HistoryTrouble) {
        self.path = path
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            pool = try Self.open(path)
        } catch {
            throw HistoryTrouble(path: path, error: error)
        }
    }

    /// Opens the pool and brings its schema up to date, again if another connection was creating the same new
    /// database at that moment (`ConcurrentOpening`).
    private static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try ConcurrentOpening.open {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try migrator.migrate(pool)
            return pool
        }
    }

    /// The schema, versioned.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: HistoryEntry.databaseTableName) { t in
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
            try db.create(index: "check_result_by_check_time", on: HistoryEntry.databaseTableName,
                          columns: ["check", "startedAt"])
        }
        // The vantage point of the instance that ran the check (`--vantage`); rows before it have none.
        migrator.registerMigration("vantage") { db in
            try db.alter(table: HistoryEntry.databaseTableName) { t in t.add(column: "vantage", .text) }
        }
        return migrator
    }

    /// The default location: `$XDG_DATA_HOME/wirelens/history.sqlite`, else `~/.local/share/wirelens/history.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/wirelens/history.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/wirelens/history.sqlite"
    }

    /// Stores entries in one transaction.
    public func append(_ entries: [HistoryEntry]) throws(HistoryTrouble) {
        do {
            try pool.write { db in
                for entry in entries { try entry.insert(db) }
            }
        } catch {
            throw HistoryTrouble(path: path, error: error)
        }
    }

    /// Stores entries like `append`, remembering the trouble so that a failing database is reported once, not at
    /// every result.
    public func store(_ entries: [HistoryEntry]) -> Outcome {
        do {
            try append(entries)
            lastTrouble.withLock { $0 = nil }
            return .stored
        } catch {
            let known = lastTrouble.withLock { last in
                defer { last = error }
                return last == error
            }
            return .failed(report: known ? nil : error)
        }
    }

    /// Entries started at or after `since` (µs), oldest first; of one check when `check` is given.
    public func entries(check: String? = nil, since: Int64) throws -> [HistoryEntry] {
        try pool.read { db in
            var request = HistoryEntry.filter(Column("startedAt") >= since)
            if let check { request = request.filter(Column("check") == check) }
            return try request.order(Column("startedAt")).fetchAll(db)
        }
    }

    /// The number of stored entries.
    public func count() throws -> Int {
        try pool.read { db in try HistoryEntry.fetchCount(db) }
    }

    /// SQLite's integrity check: "ok" when the file is sound.
    public func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer" }
    }
}
