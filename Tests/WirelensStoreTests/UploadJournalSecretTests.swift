import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensStore

/// The journal keeps no secret of an upload URL (user info, a presigned signature) on disk, in the database file,
/// its WAL or its shared memory, and still finds the entry for the same URL; a journal an older version wrote
/// (the URL in clear) is read and rewritten. The oracles are the raw bytes of the files and Python's sqlite3.
final class UploadJournalSecretTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-journal-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private let file = FileIdentity(device: 2049, inode: UInt64.max - 5, size: 10 << 20, modifiedNanos: 1_700_000_000_123_456_789)

    /// A segment-protocol key as `wirelens upload` makes it (part template, a space, the complete URL); every secret
    /// contains "SeKrit".
    private static func secretURL(signature: String = "SIG-SeKrit-1") -> String {
        let base = "http://uploader:PASS-SeKrit@127.0.0.1:9/upload/a"
        let query = "?X-Amz-Credential=CRED-SeKrit&X-Amz-Signature=\(signature)&keep=visible"
        return base + "/part/{index}" + query + " " + base + "/complete" + query
    }

    /// The byte ranges around each "sekrit" (any case) in the journal's files.
    private func secretsOnDisk(_ path: String) -> [String] {
        var found: [String] = []
        for name in [path, path + "-wal", path + "-shm", path + "-journal"] {
            guard let data = FileManager.default.contents(atPath: name) else { continue }
            let lower = Array(data.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
            let needle = Array("sekrit".utf8)
            var i = 0
            while i + needle.count <= lower.count, found.count < 10 {
                if lower[i] == needle[0], Array(lower[i..<(i + needle.count)]) == needle {
                    let from = max(0, i - 20), to = min(lower.count, i + 30)
                    found.append("\(name.suffix(12)): " + String(decoding: data[from..<to], as: UTF8.self))
                    i += needle.count
                } else {
                    i += 1
                }
            }
        }
        return found
    }

    /// Every row of every table, as Python's sqlite3 reads them (one line per row).
    private func rows(_ path: String) throws -> [String] {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
                for row in db.execute(f'SELECT * FROM "{table}"'):
                    print(table, *[v.hex() if isinstance(v, bytes) else v for v in row], sep="|")
            """, path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    func testTheFilesHoldNoSecretAndTheSameURLStillFindsItsEntry() throws {
        let path = directory + "/uploads.sqlite"
        let key = UploadJournalKey(file: file, url: Self.secretURL())
        do {
            let journal = try UploadJournal(path: path)
            try journal.begin(key, segmentSize: 1 << 20)
            try journal.record(key, segment: Segment(index: 0, offset: 0, length: 1 << 20))
            try journal.record(key, segment: Segment(index: 2, offset: 2 << 20, length: 1 << 20))
            XCTAssertEqual(secretsOnDisk(path), [], "while the journal is open (WAL)")
        }
        XCTAssertEqual(secretsOnDisk(path), [], "after it closed")
        let all = try rows(path)
        XCTAssertEqual(all.filter { $0.lowercased().contains("sekrit") }, [])
        XCTAssertTrue(all.contains { $0.hasPrefix("upload|") && $0.contains("keep=visible") },
                      "the redacted URL is kept for people: \(all)")

        let reopened = try UploadJournal(path: path)
        XCTAssertEqual(try reopened.entry(for: key)?.done.map(\.index), [0, 2], "--resume finds the upload")
        let renewed = UploadJournalKey(file: file, url: Self.secretURL(signature: "SIG-SeKrit-2"))
        XCTAssertNil(try reopened.entry(for: renewed), "another signature is another URL")
        try reopened.remove(key)
        XCTAssertNil(try reopened.entry(for: key))
    }

    /// A journal as the first version wrote it (schema v1 from git history, the URL in clear, WAL mode), closed
    /// cleanly (the rows in the database file, an expired one's bytes in a free page after the version's own
    /// clean-up would run) or left by a killed process (the rows in WAL frames): opening it keeps its entries,
    /// found by the same URL, and leaves no byte of the secrets in the files.
    func testAnOldJournalIsReadAndRewrittenWithoutSecrets() throws {
        try assertOldJournalIsRewritten(ending: "db.close()")
    }

    func testAnOldJournalLeftInTheWALIsReadAndRewrittenWithoutSecrets() throws {
        try assertOldJournalIsRewritten(ending: "import os; os._exit(0)")
    }

    private func assertOldJournalIsRewritten(ending: String) throws {
        let path = directory + "/old.sqlite"
        let now = Date().timeIntervalSince1970
        let made = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            path, url, now = sys.argv[1], sys.argv[2], float(sys.argv[3])
            db = sqlite3.connect(path)
            db.execute("PRAGMA journal_mode = WAL")
            db.executescript('''
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
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
                ''')
            rows = [(2049, -6, 10 << 20, 1700000000123456789, url, 1 << 20, now),
                    (2049, -6, 10 << 20, 1700000000123456789, "http://127.0.0.1:9/upload/plain", 512, now),
                    (7, 7, 7, 7, "http://old:SeKrit-expired@h/x", 1, now - 40 * 86400)]
            for row in rows:
                db.execute("INSERT INTO upload (device, inode, size, mtime_ns, url, segment_size, created_at) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            db.executemany("INSERT INTO segment VALUES (?, ?, ?, ?)",
                           [(1, 0, 0, 1 << 20), (1, 3, 3 << 20, 1 << 20), (2, 1, 512, 512)])
            db.commit()
            \(ending)
            """, path, Self.secretURL(), String(now)])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertFalse(secretsOnDisk(path).isEmpty, "the old journal holds the secrets in clear")
        if ending.contains("_exit") {
            let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
            XCTAssertGreaterThan(wal, 0, "the killed writer left its rows in the WAL")
        }

        do {
            let journal = try UploadJournal(path: path)
            let key = UploadJournalKey(file: file, url: Self.secretURL())
            XCTAssertEqual(try journal.entry(for: key), UploadJournalEntry(segmentSize: 1 << 20, done: [
                Segment(index: 0, offset: 0, length: 1 << 20), Segment(index: 3, offset: 3 << 20, length: 1 << 20),
            ]))
            let plain = UploadJournalKey(file: file, url: "http://127.0.0.1:9/upload/plain")
            XCTAssertEqual(try journal.entry(for: plain)?.done.map(\.index), [1])
            XCTAssertEqual(secretsOnDisk(path), [], "rewritten at opening")
        }
        XCTAssertEqual(secretsOnDisk(path), [])
        let all = try rows(path)
        XCTAssertEqual(all.filter { $0.lowercased().contains("sekrit") }, [])
        XCTAssertEqual(all.filter { $0.hasPrefix("upload|") }.count, 2, "the expired entry is gone, the others kept")
        XCTAssertEqual(all.filter { $0.hasPrefix("segment|") }.count, 3)
        // Opening again changes nothing.
        XCTAssertEqual(try UploadJournal(path: path).entry(for: UploadJournalKey(file: file, url: Self.secretURL()))?
            .done.map(\.index), [0, 3])
    }
}
