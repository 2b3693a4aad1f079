import Foundation
import GRDB
import WirelensCore
import WirelensDigest

/// The resumable-upload journal: one SQLite database (WAL, synchronous commits) holding, per file and URL,
/// the segments the server accepted (and an S3 upload's UploadId, never its credentials).
///
/// Each `record` is its own committed transaction, so a process killed right after it returns (even by
/// SIGKILL) leaves the segment in the journal for `wirelens upload --resume`.
///
/// The upload URL is a secret (user info, a presigned signature), so it is never stored: an entry is found by
/// the HMAC-SHA256 of the full URL under a random key kept in the database, and shows the redacted URL for
/// people. A journal written by an older version (the URL in clear) is rewritten this way when it is opened,
/// then vacuumed and its WAL truncated, so that no copy of the old rows stays in a free page or a WAL frame.
package final class UploadJournal: UploadJournaling {
    private let queue: DatabaseQueue
    /// The database file.
    package let path: String
    /// The journal's own HMAC key (32 random bytes made with the journal).
    private let urlKey: [UInt8]

    /// The default journal file: `$XDG_STATE_HOME/wirelens/uploads.sqlite`, or `~/.local/state/wirelens/uploads.sqlite`.
    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
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
    package static let maxAge: Double = 30 * 86_400

    /// Opens (creating when needed, with its directory) the journal at `path`, dropping entries older than `maxAge`
    /// and rewriting an older version's entries without their URLs.
    package init(path: String, now: Date = Date()) throws(JournalError) {
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
                // Deleted rows are overwritten with zeros, not left in free pages.
                try db.execute(sql: "PRAGMA secure_delete = ON")
            }
            // Another upload may be creating the same new journal at this moment: then this is tried again.
            let (opened, applied) = try ConcurrentOpening.open {
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                let applied = try queue.read { db in try Self.migrator.appliedIdentifiers(db) }
                try Self.migrator.migrate(queue)
                return (queue, applied)
            }
            queue = opened
            if applied.contains("v1") && !applied.contains(Self.keyedURLs) {
                // The old rows' bytes may still sit in free pages and in WAL frames.
                try queue.vacuum()
                try queue.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            }
            guard let key = try queue.read({ db in try Data.fetchOne(db, sql: "SELECT secret FROM url_key WHERE id = 1") }),
                  key.count == Self.keyLength else {
                throw JournalError(path: path, reason: "the journal's URL key is missing or damaged; delete the file")
            }
            urlKey = Array(key)
            try queue.write { db in
                let cutoff = now.timeIntervalSince1970 - Self.maxAge
                try db.execute(sql: "DELETE FROM segment WHERE upload_id IN (SELECT id FROM upload WHERE created_at < ?)",
                               arguments: [cutoff])
                try db.execute(sql: "DELETE FROM upload WHERE created_at < ?", arguments: [cutoff])
            }
        } catch let error as JournalError {
            throw error
        } catch {
            throw JournalError(path: path, reason: "\(error)")
        }
    }

    /// The migration that replaced the URL in clear by its keyed hash and its redacted form.
    private static let keyedURLs = "v2-keyed-urls"
    private static let keyLength = 32

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
        // GRDB turns foreign keys off while a migration runs and checks them after: the segments keep their
        // upload ids across the table's replacement.
        migrator.registerMigration(keyedURLs) { db in
            let key = (0..<keyLength).map { _ in UInt8.random(in: .min ... .max) }
            try db.execute(sql: """
                CREATE TABLE url_key (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL);
                CREATE TABLE upload_keyed (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL, url_hmac TEXT NOT NULL, url_redacted TEXT NOT NULL,
                    segment_size INTEGER NOT NULL, created_at REAL NOT NULL,
                    UNIQUE (device, inode, size, mtime_ns, url_hmac));
                """)
            try db.execute(sql: "INSERT INTO url_key (id, secret) VALUES (1, ?)", arguments: [Data(key)])
            let rows = try Row.fetchAll(db, sql: "SELECT id, device, inode, size, mtime_ns, url, segment_size, created_at FROM upload")
            for row in rows {
                let url: String = row["url"]
                try db.execute(sql: """
                    INSERT INTO upload_keyed (id, device, inode, size, mtime_ns, url_hmac, url_redacted, segment_size, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [row["id"], row["device"], row["inode"], row["size"], row["mtime_ns"],
                                     try hmac(url, key: key), redacted(url), row["segment_size"], row["created_at"]])
            }
            try db.execute(sql: "DROP TABLE upload")
            try db.execute(sql: "ALTER TABLE upload_keyed RENAME TO upload")
        }
        migrator.registerMigration("v3-remote-upload-id") { db in
            try db.execute(sql: "ALTER TABLE upload ADD COLUMN remote_upload_id TEXT")
        }
        return migrator
    }

    /// The keyed hash that finds a URL's entry.
    private static func hmac(_ url: String, key: [UInt8]) throws -> String {
        guard let hex = HMACSHA256.hex(key: key, message: url) else {
            throw DatabaseError(message: "libcrypto could not compute an HMAC")
        }
        return hex
    }

    /// The key's URL (a part template and a complete URL, separated by a space) as people may see it.
    static func redacted(_ url: String) -> String {
        url.split(separator: " ", omittingEmptySubsequences: false).map { Redactor.url(String($0)) }.joined(separator: " ")
    }

    private static let keyClause = "device = ? AND inode = ? AND size = ? AND mtime_ns = ? AND url_hmac = ?"

    private func arguments(_ key: UploadJournalKey) throws -> StatementArguments {
        // SQLite integers are signed 64-bit: device and inode numbers are stored by their bit patterns.
        [Int64(bitPattern: key.file.device), Int64(bitPattern: key.file.inode), key.file.size,
         key.file.modifiedNanos, try Self.hmac(key.url, key: urlKey)]
    }

    private func uploadID(_ db: Database, _ key: UploadJournalKey) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM upload WHERE \(Self.keyClause)", arguments: arguments(key))
    }

    package func entry(for key: UploadJournalKey) throws -> UploadJournalEntry? {
        try wrap {
            try queue.read { db in
                guard let row = try Row.fetchOne(db, sql: "SELECT id, segment_size, remote_upload_id FROM upload "
                                                      + "WHERE \(Self.keyClause)",
                                                 arguments: arguments(key)) else { return nil }
                return try Self.entry(db, row)
            }
        }
    }

    package func latestEntry(url: String) throws -> (key: UploadJournalKey, entry: UploadJournalEntry)? {
        try wrap {
            try queue.read { db in
                guard let row = try Row.fetchOne(db, sql: """
                    SELECT id, device, inode, size, mtime_ns, segment_size, remote_upload_id FROM upload
                    WHERE url_hmac = ? ORDER BY created_at DESC, id DESC LIMIT 1
                    """, arguments: [try Self.hmac(url, key: urlKey)]) else { return nil }
                let device: Int64 = row["device"], inode: Int64 = row["inode"]
                let file = FileIdentity(device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode),
                                        size: row["size"], modifiedNanos: row["mtime_ns"])
                return (UploadJournalKey(file: file, url: url), try Self.entry(db, row))
            }
        }
    }

    /// The entry of an `upload` row (its id, segment size and remote upload id) with its segments.
    private static func entry(_ db: Database, _ row: Row) throws -> UploadJournalEntry {
        let id: Int64 = row["id"]
        let segments = try Row.fetchAll(db, sql: "SELECT idx, offset, length FROM segment WHERE upload_id = ? ORDER BY offset",
                                        arguments: [id]).map {
            Segment(index: $0["idx"], offset: $0["offset"], length: $0["length"])
        }
        return UploadJournalEntry(segmentSize: row["segment_size"], done: segments, remoteUploadId: row["remote_upload_id"])
    }

    package func begin(_ key: UploadJournalKey, segmentSize: Int64, remoteUploadId: String?) throws {
        try wrap {
            try queue.write { db in
                if let id = try uploadID(db, key) {
                    try db.execute(sql: "DELETE FROM segment WHERE upload_id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM upload WHERE id = ?", arguments: [id])
                }
                var values = try arguments(key)
                _ = values.append(contentsOf: [Self.redacted(key.url), segmentSize, Date().timeIntervalSince1970,
                                               remoteUploadId])
                try db.execute(sql: """
                    INSERT INTO upload (device, inode, size, mtime_ns, url_hmac, url_redacted, segment_size, created_at,
                                        remote_upload_id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: values)
            }
        }
    }

    package func record(_ key: UploadJournalKey, segment: Segment) throws {
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

    package func remove(_ key: UploadJournalKey) throws {
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
package struct JournalError: Error, CustomStringConvertible, Sendable {
    package let path: String
    package let reason: String

    package var description: String { "upload journal '\(path)': \(reason)" }
}
