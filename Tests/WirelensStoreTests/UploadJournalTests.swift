import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensStore

/// The SQLite upload journal: entries by file identity and URL, records, replacement, removal, reopening.
final class UploadJournalTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-journal-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private let file = FileIdentity(device: 2049, inode: UInt64.max - 5, size: 10 << 20, modifiedNanos: 1_700_000_000_123_456_789)

    func testRecordedSegmentsSurviveReopeningAndAreKeyedByFileAndURL() throws {
        let path = directory + "/nested/uploads.sqlite"
        let key = UploadJournalKey(file: file, url: "http://127.0.0.1:1/upload/a")
        do {
            let journal = try UploadJournal(path: path)
            XCTAssertNil(try journal.entry(for: key))
            try journal.begin(key, segmentSize: 1 << 20)
            try journal.record(key, segment: Segment(index: 3, offset: 3 << 20, length: 1 << 20))
            try journal.record(key, segment: Segment(index: 0, offset: 0, length: 1 << 20))
        }
        let reopened = try UploadJournal(path: path)
        let entry = try XCTUnwrap(reopened.entry(for: key))
        XCTAssertEqual(entry.segmentSize, 1 << 20)
        XCTAssertEqual(entry.done.map(\.index), [0, 3], "in file order")
        var otherURL = key
        otherURL.url += "x"
        XCTAssertNil(try reopened.entry(for: otherURL))
        var touched = key
        touched.file.modifiedNanos += 1
        XCTAssertNil(try reopened.entry(for: touched), "a modified file does not match its old entry")
    }

    func testBeginReplacesAndRemoveDeletes() throws {
        let journal = try UploadJournal(path: directory + "/j.sqlite")
        let key = UploadJournalKey(file: file, url: "u")
        try journal.begin(key, segmentSize: 100)
        try journal.record(key, segment: Segment(index: 0, offset: 0, length: 100))
        try journal.begin(key, segmentSize: 200)
        XCTAssertEqual(try journal.entry(for: key), UploadJournalEntry(segmentSize: 200, done: []))
        try journal.record(key, segment: Segment(index: 1, offset: 200, length: 200))
        try journal.remove(key)
        XCTAssertNil(try journal.entry(for: key))
        XCTAssertThrowsError(try journal.record(key, segment: Segment(index: 2, offset: 0, length: 1)))
    }

    /// An S3 upload's entry keeps its upload id across reopening (sqlite3 reads it in its own column);
    /// `latestEntry(url:)` finds it under a changed file's identity, newest first.
    func testAnS3EntryKeepsItsUploadIdAndIsFoundByURLAlone() throws {
        let path = directory + "/s3.sqlite"
        let url = "http://127.0.0.1:9/bucket/key.bin"
        let key = UploadJournalKey(file: file, url: url)
        var older = key
        older.file.modifiedNanos -= 1_000
        do {
            let journal = try UploadJournal(path: path)
            try journal.begin(older, segmentSize: 8 << 20, remoteUploadId: "old-id")
            try journal.begin(key, segmentSize: 8 << 20, remoteUploadId: "id/with+chars")
            try journal.record(key, segment: Segment(index: 1, offset: 8 << 20, length: 8 << 20))
        }
        let reopened = try UploadJournal(path: path)
        XCTAssertEqual(try reopened.entry(for: key),
                       UploadJournalEntry(segmentSize: 8 << 20, done: [Segment(index: 1, offset: 8 << 20, length: 8 << 20)],
                                          remoteUploadId: "id/with+chars"))
        XCTAssertEqual(try reopened.entry(for: older)?.remoteUploadId, "old-id")
        var changed = key
        changed.file.size += 1
        XCTAssertNil(try reopened.entry(for: changed))
        let latest = try XCTUnwrap(reopened.latestEntry(url: url))
        XCTAssertEqual(latest.key, key, "the newest entry of the URL, with its file's identity")
        XCTAssertEqual(latest.entry.remoteUploadId, "id/with+chars")
        XCTAssertNil(try reopened.latestEntry(url: url + "x"))
        let rows = try ProcessRunner.run("/usr/bin/sqlite3", [path, "SELECT remote_upload_id FROM upload ORDER BY id"],
                                         timeout: 30)
        XCTAssertEqual(rows.stdout, "old-id\nid/with+chars\n", rows.stderr)
        // The segment protocol's entries have none.
        try reopened.begin(UploadJournalKey(file: file, url: "u"), segmentSize: 1)
        XCTAssertNil(try reopened.entry(for: UploadJournalKey(file: file, url: "u"))?.remoteUploadId)
    }

    func testTheDatabaseIsInWALMode() throws {
        let path = directory + "/wal.sqlite"
        let journal = try UploadJournal(path: path)
        try journal.begin(UploadJournalKey(file: file, url: "u"), segmentSize: 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    func testAnUnwritableLocationIsAJournalErrorNamingThePath() {
        XCTAssertThrowsError(try UploadJournal(path: "/proc/wirelens/uploads.sqlite")) { error in
            XCTAssertTrue("\(error)".contains("/proc/wirelens/uploads.sqlite"), "\(error)")
        }
    }

    func testDefaultPathFollowsXDGStateHome() {
        XCTAssertEqual(UploadJournal.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]),
                       "/s/wirelens/uploads.sqlite")
        XCTAssertEqual(UploadJournal.defaultPath(environment: ["HOME": "/h"]), "/h/.local/state/wirelens/uploads.sqlite")
        XCTAssertEqual(UploadJournal.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]),
                       "/h/.local/state/wirelens/uploads.sqlite", "a relative XDG path is ignored, as the spec says")
    }

    func testEntriesOlderThanThirtyDaysAreDroppedOnOpening() throws {
        let path = directory + "/old.sqlite"
        let key = UploadJournalKey(file: file, url: "u")
        try UploadJournal(path: path).begin(key, segmentSize: 10)
        XCTAssertNotNil(try UploadJournal(path: path, now: Date().addingTimeInterval(29 * 86_400)).entry(for: key))
        XCTAssertNil(try UploadJournal(path: path, now: Date().addingTimeInterval(31 * 86_400)).entry(for: key))
    }
}
