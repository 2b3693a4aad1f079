import Foundation
import GRDB
import WirelensCore

/// The resumable-upload journal: one SQLite database (WAL, synchronous commits) holding, per file and URL,
/// the segments the server accepted.
///
/// Each `record` is its own committed transaction, so a process killed right after it returns (even by
/// SIGKILL) leaves the segment in the journal for `wirelens upload --resume`.
public final class UploadJournal: UploadJournaling {
    private let queue: DatabaseQueue
    /// The database file.
    public let path: String

    /// The default journal file: `$XDG_STATE_HOME/wirelens/uploads.sqlite`, or `~/.local/state/wirelens/uploads.sqlite`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = state
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = (home as NSString).appendingPathComponent(".local/state")
        }
        return ((base as NSString).appendingPathComponent("wirelens") as NSString).appendingPathComponent("uploads.sqlite")
    }

    /// Entries older than this (seconds) are dropped when the journal is opened: their file was changed or
    /// their upload abandoned long ago.
    public static let maxAge: Double = 30 * 86_400

    /// Opens (creating when needed, with its directory) the journal at `path`, dropping entries older than `maxAge`.
    public init(path: String, now: Date = Date()) throws(JournalError) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.busyMode = .timeout(5)
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(queue)
            try queue.write { db in
                let cutoff = now.timeIntervalSince1970 - Self.maxAge
                try db.execute(sql: "DELETE FROM segment WHERE upload_id IN (SELECT id FROM upload WHERE created_at < ?)",
                               arguments: [cutoff])
                try db.execute(sql: "DELETE FROM upload WHERE created_at < ?", arguments: [cutoff])
            }
        } catch {
            throw JournalError(path: path, reason: "\(error)")
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE upload (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL, url TEXT NOT NULL,
                    segment_size INTEGER NOT NULL, created_at REAL NOT NULL,
                    UNIQUE (device, inode, size, mtime_ns, url));
                CREATE TABLE segment (
                    upload_id INTEGER NOT NULL REFERENCES upload(id) ON DELETE CASCADE,
                    idx INTEGER NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
                    PRIMARY KEY (upload_id, idx));
                """)
        }
        return migrator
    }

    private static let keyClause = "device = ? AND inode = ? AND size = ? AND mtime_ns = ? AND url = ?"

    private static func arguments(_ key: UploadJournalKey) -> StatementArguments {
        // SQLite integers are signed 64-bit: device and inode numbers are stored by their bit patterns.
        [Int64(bitPattern: key.file.device), Int64(bitPattern: key.file.inode), key.file.size,
         key.file.modifiedNanos, key.url]
    }

    private func uploadID(_ db: Database, _ key: UploadJournalKey) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM upload WHERE \(Self.keyClause)", arguments: Self.arguments(key))
    }

    public func entry(for key: UploadJournalKey) throws -> UploadJournalEntry? {
        try wrap {
            try queue.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT id, segment_size FROM upload WHERE \(Self.keyClause)",
                                                 arguments: Self.arguments(key)) else { return nil }
                let id: Int64 = row["id"]
                let segments = try Row.fetchAll(db, sql: "SELECT idx, offset, length FROM segment WHERE upload_id = ? ORDER BY offset",
                                                arguments: [id]).map {
                    Segment(index: $0["idx"], offset: $0["offset"], length: $0["length"])
                }
                return UploadJournalEntry(segmentSize: row["segment_size"], done: segments)
            }
        }
    }

    public func begin(_ key: UploadJournalKey, segmentSize: Int64) throws {
        try wrap {
            try queue.write { db in
                if let id = try uploadID(db, key) {
                    try db.execute(sql: "DELETE FROM segment WHERE upload_id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM upload WHERE id = ?", arguments: [id])
                }
                var arguments = Self.arguments(key)
                _ = arguments.append(contentsOf: [segmentSize, Date().timeIntervalSince1970])
                try db.execute(sql: """
                    INSERT INTO upload (device, inode, size, mtime_ns, url, segment_size, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: arguments)
            }
        }
    }

    public func record(_ key: UploadJournalKey, segment: Segment) throws {
        try wrap {
            try queue.write { db in
                guard let id = try uploadID(db, key) else {
                    throw JournalError(path: path, reason: "no entry for this upload (begin was not called)")
                }
                try db.execute(sql: "INSERT OR REPLACE INTO segment (upload_id, idx, offset, length) VALUES (?, ?, ?, ?)",
                               arguments: [id, segment.index, segment.offset, segment.length])
            }
        }
    }

    public func remove(_ key: UploadJournalKey) throws {
        try wrap {
            try queue.write { db in
                if let id = try uploadID(db, key) {
                    try db.execute(sql: "DELETE FROM segment WHERE upload_id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM upload WHERE id = ?", arguments: [id])
                }
            }
        }
    }

    /// Runs a database call, turning GRDB's errors into a JournalError naming the file.
    private func wrap<T>(_ body: () throws -> T) throws(JournalError) -> T {
        do {
            return try body()
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(path: path, reason: "\(error)")
        }
    }
}

/// The journal could not be opened, read or written.
public struct JournalError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String

    public var description: String { "upload journal '\(path)': \(reason)" }
}
