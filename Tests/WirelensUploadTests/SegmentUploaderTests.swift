import Foundation
import Synchronization
import WirelensCore
import WirelensDigest
import WirelensTestSupport
import XCTest
import WirelensProbe
@testable import WirelensUpload

/// The segmented uploader against a server with the segment protocol (the target server, or its Python stand-in for
/// two faults): retries of failed parts, the final SHA-256, resume from a journal, servers without the API, and the
/// gain of parallel segments on a per-connection bandwidth cap.
final class SegmentUploaderTests: XCTestCase {
    private var files: [String] = []

    override func tearDown() {
        files.forEach { unlink($0) }
    }

    /// A file of `size` pseudo-random bytes.
    private func makeFile(_ size: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-seg-\(UUID().uuidString).bin").path
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        files.append(path)
        return path
    }

    private func uploader(_ plan: UploadPlan, journal: MemoryJournal? = nil, key: UploadJournalKey? = nil,
                          resume: Bool = false) throws -> SegmentUploader {
        var options = ProbeOptions()
        options.concurrency = plan.parallel
        options.maxHostConnections = plan.parallel
        return SegmentUploader(plan: plan, engine: try Engine(options: options), journal: journal, journalKey: key,
                               resume: resume)
    }

    func testUploadAgainstAServerFailingTenPercentOfPartsCompletesAndReportsTheRetries() async throws {
        let peer = try SegmentPeer.start(failParts: 0.1, seed: 7)
        let path = try makeFile(3 << 20)
        let plan = UploadPlan(filePath: path, fileSize: 3 << 20, baseURL: peer.uploadURL("ten"), sizing: .fixed(64 << 10),
                              parallel: 4, maxRetries: 3)
        let outcome = try await uploader(plan).run()
        let u = outcome.section
        XCTAssertEqual(outcome.ending, .completed, u.failure ?? "")
        XCTAssertTrue(u.verified)
        XCTAssertEqual(u.serverSHA256, try SHA256Digest.hex(ofFile: path))
        XCTAssertEqual(u.serverBytes, 3 << 20)
        XCTAssertEqual(u.segmentsTotal, 48)
        XCTAssertEqual(u.segmentsSent, 48)
        // 48 parts at 10%: some failed (seed 7 gives a few), each failure retried and reported.
        XCTAssertGreaterThan(u.failedAttempts, 0)
        XCTAssertEqual(u.attempts.count, 48 + u.failedAttempts)
        XCTAssertEqual(u.attempts.filter { !$0.succeeded }.count, u.failedAttempts)
        XCTAssertEqual(Set(u.attempts.filter { !$0.succeeded }.map(\.segment)).count, u.segmentsRetried)
        XCTAssertEqual(u.bytesSentTwice, Int64(u.failedAttempts) * (64 << 10))
        XCTAssertGreaterThan(u.timeLostToRetriesMs, 0)
        // Every attempt is a task; the failed ones carry their 503, and the complete call is the last task.
        XCTAssertEqual(outcome.tasks.count, u.attempts.count + 1)
        XCTAssertEqual(outcome.tasks.filter { $0.statusCode == 503 }.count, u.failedAttempts)
        XCTAssertEqual(outcome.tasks.last?.method, "POST")
        for attempt in u.attempts where attempt.attempt > 1 {
            let earlier = u.attempts.filter { $0.segment == attempt.segment && $0.attempt == attempt.attempt - 1 }
            XCTAssertEqual(earlier.count, 1)
            XCTAssertFalse(earlier[0].succeeded)
            XCTAssertLessThan(earlier[0].task, attempt.task, "a retry comes after the attempt it repeats")
        }
        peer.stop()
    }

    /// On a target capped per connection (as a phone uplink), 4 segments in flight move at least 3 times as fast
    /// as 1: each connection gets its own cap. Throughput is the uploader's own effective figure.
    func testFourSegmentsInFlightBeatOneByThreeTimesOnAShapedTarget() async throws {
        let peer = try SegmentPeer.start(rate: 1_000_000)
        let size = 2 << 20
        let path = try makeFile(size)
        var throughput: [Int: Double] = [:]
        for parallel in [1, 4] {
            let plan = UploadPlan(filePath: path, fileSize: Int64(size), baseURL: peer.uploadURL("shaped-\(parallel)"),
                                  sizing: .fixed(128 << 10), parallel: parallel, maxRetries: 0)
            let outcome = try await uploader(plan).run()
            XCTAssertEqual(outcome.ending, .completed, outcome.section.failure ?? "")
            XCTAssertTrue(outcome.section.verified)
            throughput[parallel] = try XCTUnwrap(outcome.section.effectiveBytesPerSecond)
        }
        let serial = try XCTUnwrap(throughput[1])
        let parallel = try XCTUnwrap(throughput[4])
        // One connection cannot beat its cap (a little slack for the counting), four add up to about 4x.
        XCTAssertLessThan(serial, 1_100_000, "one connection is held to its 1 MB/s cap")
        XCTAssertGreaterThanOrEqual(parallel / serial, 3, "serial \(serial) B/s, 4 in flight \(parallel) B/s")
        peer.stop()
    }

    func testAutoSizingStartsAloneThenSizesFromTheMeasurement() async throws {
        let peer = try SegmentPeer.start()
        let size = 6 << 20
        let path = try makeFile(size)
        let plan = UploadPlan(filePath: path, fileSize: Int64(size), baseURL: peer.uploadURL("auto"), sizing: .auto,
                              parallel: 3, maxRetries: 1)
        let outcome = try await uploader(plan).run()
        let u = outcome.section
        XCTAssertEqual(outcome.ending, .completed, u.failure ?? "")
        XCTAssertTrue(u.verified)
        XCTAssertEqual(u.segmentMode, "auto")
        XCTAssertEqual(u.segmentSizes.first?.bytes, 1 << 20)
        XCTAssertEqual(u.segmentSizes.first?.fromSegment, 0)
        // The first attempt ran alone: the second started after it ended.
        let first = outcome.tasks[0]
        XCTAssertGreaterThanOrEqual(outcome.tasks[1].startedAt, first.endedAt)
        XCTAssertEqual(u.attempts.reduce(Int64(0)) { $0 + $1.length }, Int64(size))
        peer.stop()
    }

    func testResumeSendsOnlyTheSegmentsTheJournalLacks() async throws {
        let peer = try SegmentPeer.start()
        let path = try makeFile(1 << 20)
        let plan = UploadPlan(filePath: path, fileSize: 1 << 20, baseURL: peer.uploadURL("resume"),
                              sizing: .fixed(128 << 10), parallel: 2, maxRetries: 0)
        let journal = MemoryJournal()
        let key = UploadJournalKey(file: FileIdentity(device: 1, inode: 2, size: 1 << 20, modifiedNanos: 3), url: plan.url)
        // A first run: completes and removes its journal entry.
        let full = try await uploader(plan, journal: journal, key: key).run()
        XCTAssertEqual(full.ending, .completed, full.section.failure ?? "")
        XCTAssertNil(try journal.entry(for: key))
        // A run interrupted after segments 0, 1 and 5: the journal holds them, the server has them.
        try journal.begin(key, segmentSize: 128 << 10)
        for index in [0, 1, 5] {
            try journal.record(key, segment: Segment(index: index, offset: Int64(index) << 17, length: 128 << 10))
        }
        let resumed = try await uploader(plan, journal: journal, key: key, resume: true).run()
        let u = resumed.section
        XCTAssertEqual(resumed.ending, .completed, u.failure ?? "")
        XCTAssertTrue(u.resumed)
        XCTAssertEqual(u.resumedSegmentsSkipped, 3)
        XCTAssertEqual(u.resumedBytesSkipped, 3 * (128 << 10))
        XCTAssertEqual(u.attempts.map(\.segment).sorted(), [2, 3, 4, 6, 7])
        XCTAssertTrue(u.verified)
        peer.stop()
    }

    func testAServerWithoutTheSegmentAPIStopsAtOnceWithAClearError() async throws {
        let servers = try TestServers.get()
        let path = try makeFile(2 << 20)
        // nginx: no such location (404).
        let plan = UploadPlan(filePath: path, fileSize: 2 << 20, baseURL: servers.http("/no-segments/x"),
                              sizing: .fixed(256 << 10), parallel: 2, maxRetries: 3)
        let outcome = try await uploader(plan).run()
        XCTAssertEqual(outcome.ending, .refused)
        XCTAssertTrue(outcome.section.failure?.contains("no segment API") ?? false, outcome.section.failure ?? "nil")
        XCTAssertLessThanOrEqual(outcome.tasks.count, 2, "no retry storm: at most the attempts already in flight")
        XCTAssertFalse(outcome.section.verified)
    }

    func testAServerFailingEverythingStopsBeforeEverySegmentBurnsItsRetries() async throws {
        let peer = try SegmentPeer.start(failParts: 1)
        let path = try makeFile(4 << 20)
        let plan = UploadPlan(filePath: path, fileSize: 4 << 20, baseURL: peer.uploadURL("down"), sizing: .fixed(64 << 10),
                              parallel: 2, maxRetries: 3)
        let outcome = try await uploader(plan).run()
        XCTAssertEqual(outcome.ending, .refused)
        XCTAssertTrue(outcome.section.failure?.contains("in a row failed") ?? false, outcome.section.failure ?? "nil")
        XCTAssertLessThan(outcome.tasks.count, 64 * 4)
        XCTAssertLessThanOrEqual(outcome.tasks.count, SegmentSchedule.failuresInARowLimit(parallel: 2) + 2)
        peer.stop()
    }

    /// A segment that fails after --retry-max-time passed is not tried again, and the error names that limit, not
    /// the retries it did not use.
    func testAFailurePastRetryMaxTimeSaysSo() async throws {
        let peer = try SegmentPeer.start(failParts: 1)
        let path = try makeFile(64 << 10)
        var plan = UploadPlan(filePath: path, fileSize: 64 << 10, baseURL: peer.uploadURL("late"), sizing: .fixed(64 << 10),
                              parallel: 1, maxRetries: 5)
        plan.retryMaxTime = 1
        let outcome = try await uploader(plan).run()
        XCTAssertEqual(outcome.ending, .refused)
        let failure = try XCTUnwrap(outcome.section.failure)
        XCTAssertTrue(failure.contains("giving up (--retry-max-time 1µs passed)"), failure)
        XCTAssertFalse(failure.contains("--retry 5"), failure)
        XCTAssertEqual(outcome.tasks.count, 1, "no retry once the time passed")
        peer.stop()
    }

    func testACompleteCallFailingInPassingIsTriedAgain() async throws {
        let peer = try SegmentPeer.start(failComplete: 2)
        let path = try makeFile(300_000)
        var plan = UploadPlan(filePath: path, fileSize: 300_000, baseURL: peer.uploadURL("complete"), sizing: .fixed(100_000),
                              parallel: 2, maxRetries: 2)
        let outcome = try await uploader(plan).run()
        XCTAssertEqual(outcome.ending, .completed, outcome.section.failure ?? "")
        XCTAssertTrue(outcome.section.verified)
        XCTAssertEqual(outcome.tasks.filter { $0.method == "POST" }.map(\.statusCode), [503, 503, 200])
        // With one retry only, the second 503 ends the upload.
        plan = UploadPlan(filePath: path, fileSize: 300_000, baseURL: peer.uploadURL("complete2"), sizing: .fixed(100_000),
                          parallel: 2, maxRetries: 1)
        let failed = try await uploader(plan).run()
        XCTAssertEqual(failed.ending, .refused)
        XCTAssertTrue(failed.section.failure?.contains("503 to the complete call") ?? false, failed.section.failure ?? "nil")
        peer.stop()
    }
}

/// An in-memory journal for the uploader's tests (the SQLite one is tested in WirelensStoreTests and end to end
/// through the CLI).
final class MemoryJournal: UploadJournaling {
    private let entries = Mutex<[UploadJournalKey: UploadJournalEntry]>([:])

    func entry(for key: UploadJournalKey) throws -> UploadJournalEntry? { entries.withLock { $0[key] } }
    func latestEntry(url: String) throws -> (key: UploadJournalKey, entry: UploadJournalEntry)? {
        entries.withLock { all in all.first { $0.key.url == url }.map { ($0.key, $0.value) } }
    }
    func begin(_ key: UploadJournalKey, segmentSize: Int64, remoteUploadId: String?) throws {
        entries.withLock { $0[key] = UploadJournalEntry(segmentSize: segmentSize, done: [], remoteUploadId: remoteUploadId) }
    }
    func record(_ key: UploadJournalKey, segment: Segment) throws {
        entries.withLock { $0[key]?.done.append(segment) }
    }
    func remove(_ key: UploadJournalKey) throws { entries.withLock { $0[key] = nil } }
}
