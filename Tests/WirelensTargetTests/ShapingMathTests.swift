import WirelensWire
import XCTest
@testable import WirelensTarget

/// Pure pieces behind shaping and faults: the token bucket, the seeded part failures, covered ranges, the pattern.
final class ShapingMathTests: XCTestCase {
    func testTokenBucketPacesToItsRate() {
        var bucket = TokenBucket(rate: 1000, burst: 100, now: 0)
        XCTAssertEqual(bucket.delay(now: 0), 0, "a full bucket lets the first burst through")
        bucket.take(600, now: 0)
        // 500 bytes of debt at 1000 B/s: half a second.
        XCTAssertEqual(bucket.delay(now: 0), 500_000_000)
        XCTAssertEqual(bucket.delay(now: 250_000_000), 250_000_000)
        XCTAssertEqual(bucket.delay(now: 500_000_000), 0)
        // Idle time refills at most to the burst.
        XCTAssertEqual(bucket.delay(now: 60_000_000_000), 0)
        bucket.take(101, now: 60_000_000_000)
        XCTAssertEqual(bucket.delay(now: 60_000_000_000), 1_000_000)
        XCTAssertEqual(TokenBucket.chunkSize(rate: nil), 65536)
        XCTAssertEqual(TokenBucket.chunkSize(rate: 720_000), 14_400)
        XCTAssertEqual(TokenBucket.chunkSize(rate: 10), 1024)
    }

    func testPartFailuresAreSeededAndRoughlyTheFraction() {
        let policy = PartFailurePolicy(fraction: 0.1, seed: 7)
        var failures = 0
        for index in 0..<2000 where policy.fails(id: "up", index: index, attempt: 1) { failures += 1 }
        XCTAssertGreaterThan(failures, 140)
        XCTAssertLessThan(failures, 260)
        // Repeatable, and dependent on each input.
        let first = (0..<200).map { policy.fails(id: "up", index: $0, attempt: 1) }
        XCTAssertEqual(first, (0..<200).map { policy.fails(id: "up", index: $0, attempt: 1) })
        XCTAssertNotEqual(first, (0..<200).map { policy.fails(id: "up", index: $0, attempt: 2) })
        XCTAssertNotEqual(first, (0..<200).map { PartFailurePolicy(fraction: 0.1, seed: 8).fails(id: "up", index: $0, attempt: 1) })
        XCTAssertNotEqual(first, (0..<200).map { policy.fails(id: "other", index: $0, attempt: 1) })
        XCTAssertFalse((0..<200).contains { PartFailurePolicy(fraction: 0, seed: 7).fails(id: "up", index: $0, attempt: 1) })
        XCTAssertTrue((0..<200).allSatisfy { PartFailurePolicy(fraction: 1, seed: 7).fails(id: "up", index: $0, attempt: 1) })
    }

    func testCoveredRanges() {
        let covered = CoveredRanges([10...19, 0...4, 5...7, 15...30, 40...49])
        XCTAssertEqual(covered.runs, [0...7, 10...30, 40...49])
        XCTAssertEqual(covered.missing(total: 50), [8...9, 31...39])
        XCTAssertEqual(covered.missing(total: 60), [8...9, 31...39, 50...59])
        XCTAssertEqual(covered.missing(total: 5), [])
        XCTAssertEqual(CoveredRanges([]).missing(total: 3), [0...2])
        XCTAssertEqual(CoveredRanges([0...9]).missing(total: 10), [])
        XCTAssertEqual(String(decoding: MissingRangesAnswer(missing: [1...2]).jsonBytes, as: UTF8.self), #"{"error":"missing ranges","missing":[[1,2]]}"#)
    }

    func testResetPointCountsInResourceOffsets() {
        let whole = ReplyBody.pattern(offset: 0, count: 1000)
        XCTAssertEqual(whole.resetPoint(after: 300), 300)
        XCTAssertEqual(whole.resetPoint(after: 0), 0, "reset before the first body byte")
        XCTAssertNil(whole.resetPoint(after: 1000), "N at the end: sent whole")
        let resumed = ReplyBody.pattern(offset: 300, count: 700)
        XCTAssertNil(resumed.resetPoint(after: 300), "a range starting at N is served whole")
        XCTAssertNil(resumed.resetPoint(after: 100), "a range starting beyond N is served whole")
        XCTAssertEqual(ReplyBody.pattern(offset: 200, count: 800).resetPoint(after: 300), 100)
        XCTAssertEqual(ReplyBody.empty.resetPoint(after: 5), nil)
    }
}
