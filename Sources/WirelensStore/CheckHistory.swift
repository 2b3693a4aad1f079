import Foundation
import GRDB
import Synchronization

/// The check history database: every check result, in SQLite through a GRDB DatabasePool.
///
/// WAL journal mode (a DatabasePool's default), so readers (`wirelens history`) work while a writer (`check
/// --every`, `serve`) runs, and a write interrupted by kill -9 leaves the last committed state. The tables are
/// `HistorySchema`'s: names interned, runs clustered on (check, time), so that reading one check since a time and
/// removing the runs older than a cut (`removeOlder`) are ranges of the key however many rows the file holds.
package final class CheckHistory: Sendable {
    private let pool: DatabasePool
    /// The database file.
    package let path: String
    /// The trouble of the last write, when it failed.
    private let lastTrouble = Mutex<HistoryTrouble?>(nil)
    /// The ids of the check names this process has stored or read (names are never removed, so ids stay valid).
    private let nameIDs = Mutex<[String: Int64]>([:])

    /// What became of a `store`.
    package enum Outcome: Sendable, Equatable {
        case stored
        /// Not stored; `report` is the trouble when it is new (the first failed write, or another reason than the
        /// last one), nil when it was already reported.
        case failed(report: HistoryTrouble?)
    }

    /// Opens (creating if needed) the database at `path`, with its directory; a file that cannot be used (damaged,
    /// not a database, not writable) throws HistoryTrouble.
    package init(path: String) throws(HistoryTrouble) {
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
            try HistorySchema.migrator.migrate(pool)
            return pool
        }
    }

    /// The default location: `$XDG_DATA_HOME/wirelens/history.sqlite`, else `~/.local/share/wirelens/history.sqlite`.
    package static func defaultPath(environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/wirelens/history.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/share/wirelens/history.sqlite"
    }

    /// Stores entries in one transaction. A run of a check at a µs that check already has is stored one µs later.
    package func append(_ entries: [HistoryEntry]) throws(HistoryTrouble) {
        do {
            let added = try pool.write { db in
                var added: [String: Int64] = [:]
                let known = nameIDs.withLock { $0 }
                let insert = try db.cachedStatement(sql: HistorySchema.insertSQL)
                for entry in entries {
                    let id = try known[entry.check] ?? added[entry.check] ?? Self.internName(entry.check, db)
                    added[entry.check] = id
                    var values = Self.values(of: entry)
                    for shift in 0..<Self.maxShift {
                        values[1] = (entry.startedAt + shift).databaseValue
                        values[0] = id.databaseValue
                        try insert.execute(arguments: StatementArguments(values))
                        if db.changesCount > 0 { break }
                    }
                }
                return added
            }
            // Only once committed: the ids of a rolled-back transaction would name nothing.
            nameIDs.withLock { $0.merge(added) { old, _ in old } }
        } catch {
            throw HistoryTrouble(path: path, error: error)
        }
    }

    /// How many µs later a run is tried when its check already has runs at those µs.
    private static let maxShift: Int64 = 1000

    /// The id of a check name, added to `check_name` when new.
    private static func internName(_ name: String, _ db: Database) throws -> Int64 {
        try db.execute(sql: "INSERT OR IGNORE INTO check_name (name) VALUES (?)", arguments: [name])
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM check_name WHERE name = ?", arguments: [name]) else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "check name '\(name)' was not stored")
        }
        return id
    }

    /// The arguments of `HistorySchema.insertSQL`, the key's two left for the caller.
    private static func values(of entry: HistoryEntry) -> [DatabaseValue] {
        var values: [DatabaseValue] = [.null, .null, entry.passed.databaseValue, entry.statusCode.databaseValue,
                                       entry.errorClass.databaseValue]
        values += HistoryEntry.phaseNames.map { entry.phase(named: $0).databaseValue }
        values += [entry.retries.databaseValue, entry.reused.databaseValue,
                   entry.uploadSpeed.map { Int64($0.rounded()) }.databaseValue,
                   entry.downloadSpeed.map { Int64($0.rounded()) }.databaseValue, entry.vantage.databaseValue]
        return values
    }

    /// The entry of a row read by `checkSinceSQL` or `allSinceSQL`, whose value columns start at `first`.
    private static func entry(_ row: Row, check: String, first: Int) -> HistoryEntry {
        let phases = HistoryEntry.phaseNames.indices.map { row[first + 4 + $0] as Int64? }
        let after = first + 4 + HistoryEntry.phaseNames.count
        return HistoryEntry(
            check: check, startedAt: row[first], passed: row[first + 1], statusCode: row[first + 2],
            errorClass: row[first + 3], queue: phases[0], dns: phases[1], connect: phases[2], tls: phases[3],
            send: phases[4], wait: phases[5], receive: phases[6], ttfb: phases[7], total: phases[8],
            retries: row[after], reused: row[after + 1],
            uploadSpeed: (row[after + 2] as Int64?).map(Double.init),
            downloadSpeed: (row[after + 3] as Int64?).map(Double.init), vantage: row[after + 4])
    }

    /// Stores entries like `append`, remembering the trouble so that a failing database is reported once, not at
    /// every result.
    package func store(_ entries: [HistoryEntry]) -> Outcome {
        remembering { () throws(HistoryTrouble) in try append(entries) }
    }

    /// Removes the runs started before `cut` (µs) like `removeOlder`, remembering the trouble like `store`; the
    /// number removed, or the outcome of the failure.
    package func prune(before cut: Int64, limit: Int) -> Result<Int, PruneFailure> {
        var removed = 0
        let outcome = remembering { () throws(HistoryTrouble) in removed = try removeOlder(than: cut, limit: limit) }
        guard case .failed(let report) = outcome else { return .success(removed) }
        return .failure(PruneFailure(report: report))
    }

    /// A failed `prune`: `report` as in `Outcome.failed`.
    package struct PruneFailure: Error, Sendable, Equatable {
        package let report: HistoryTrouble?
    }

    /// Runs `write`, keeping its trouble: reported when new, nil when the same as the last write's.
    private func remembering(_ write: () throws(HistoryTrouble) -> Void) -> Outcome {
        do {
            try write()
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

    /// Removes at most `limit` runs started before `cut` (µs), oldest of each check first, in one transaction, and
    /// returns how many it removed: fewer than `limit` when no older run is left. Each check's old runs are one
    /// range of the key, so a batch costs what it removes, not what the file holds.
    package func removeOlder(than cut: Int64, limit: Int) throws(HistoryTrouble) -> Int {
        do {
            return try pool.write { db in
                let ids = try Int64.fetchAll(db, sql: "SELECT id FROM check_name ORDER BY id")
                let end = try db.cachedStatement(sql: HistorySchema.batchEndSQL)
                let delete = try db.cachedStatement(sql: HistorySchema.deleteBeforeSQL)
                var removed = 0
                for id in ids where removed < limit {
                    // The batch's last row of this check, when it has more old runs than the batch has room for.
                    let last = try Int64.fetchOne(end, arguments: [id, cut, limit - removed - 1])
                    try delete.execute(arguments: [id, last.map { $0 + 1 } ?? cut])
                    removed += db.changesCount
                }
                return removed
            }
        } catch {
            throw HistoryTrouble(path: path, error: error)
        }
    }

    /// Entries started at or after `since` (µs), oldest first; of one check when `check` is given.
    package func entries(check: String? = nil, since: Int64) throws -> [HistoryEntry] {
        try pool.read { db in
            guard let check else {
                return try Row.fetchAll(db, sql: HistorySchema.allSinceSQL, arguments: [since]).map { row in
                    Self.entry(row, check: row[0], first: 1)
                }
            }
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM check_name WHERE name = ?", arguments: [check])
            else { return [] }
            return try Row.fetchAll(db, sql: HistorySchema.checkSinceSQL, arguments: [id, since]).map { row in
                Self.entry(row, check: check, first: 0)
            }
        }
    }

    /// The names of the checks the history has known, in no set order (a check whose runs were all removed is
    /// still named here, with no entries).
    package func checkNames() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM check_name") }
    }

    /// The number of stored entries.
    package func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM check_result") ?? 0 }
    }

    /// SQLite's integrity check: "ok" when the file is sound.
    package func integrityCheck() throws -> String {
        try pool.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "no answer" }
    }
}
