import WirelensCore
import WirelensUpload
import WirelensTestSupport
import XCTest

/// The upload queue: carving, the tail retry rule, exhaustion, resume and the never-overlapping sets.
final class SegmentQueueTests: XCTestCase {
    func testFixedSizeCarvesTheFileInOrderWithAShortLastSegment() {
        var queue = SegmentQueue(fileSize: 10, alignedSize: 4)
        var segments: [Segment] = []
        while let segment = queue.next(size: 4) { segments.append(segment) }
        XCTAssertEqual(segments, [Segment(index: 0, offset: 0, length: 4), Segment(index: 1, offset: 4, length: 4),
                                  Segment(index: 2, offset: 8, length: 2)])
        XCTAssertNil(queue.invariantViolation)
        XCTAssertFalse(queue.isComplete)
        for segment in segments { queue.succeed(segment.index) }
        XCTAssertTrue(queue.isComplete)
        XCTAssertNil(queue.invariantViolation)
    }

    /// A cancelled segment goes back to the queue without counting as retried; the count of segments includes
    /// the bytes never carved (16 of 64 KiB in 1 MiB by arithmetic).
    func testReleaseCountsNoFailureAndTheCountCoversUncarvedBytes() {
        var queue = SegmentQueue(fileSize: 1 << 20)
        let first = queue.next(size: 65_536)!
        let second = queue.next(size: 65_536)!
        queue.succeed(first.index)
        queue.release(second.index)
        XCTAssertEqual(queue.segmentsRetried, 0)
        XCTAssertEqual(queue.failures, [:])
        XCTAssertEqual(queue.retryQueue, [second])
        XCTAssertNil(queue.invariantViolation)
        XCTAssertEqual(queue.segmentCount(size: 65_536), 16)
        XCTAssertEqual(SegmentQueue(fileSize: 100_001).segmentCount(size: 50_000), 3)
    }

    func testAFailedSegmentGoesToTheTailAfterEveryUncarvedByte() {
        var queue = SegmentQueue(fileSize: 12, alignedSize: 4)
        let first = queue.next(size: 4)
        XCTAssertEqual(first?.index, 0)
        XCTAssertEqual(queue.fail(0, maxRetries: 3), .requeued(attempt: 2))
        XCTAssertNil(queue.invariantViolation)
        XCTAssertEqual(queue.next(size: 4)?.index, 1, "fresh segments come before the retry")
        XCTAssertEqual(queue.next(size: 4)?.index, 2)
        XCTAssertEqual(queue.next(size: 4), Segment(index: 0, offset: 0, length: 4), "then the retry, unchanged")
        XCTAssertNil(queue.next(size: 4))
        XCTAssertNil(queue.invariantViolation)
    }

    func testASegmentIsExhaustedAfterItsRetries() {
        var queue = SegmentQueue(fileSize: 4)
        for attempt in 1...3 {
            XCTAssertEqual(queue.next(size: 4)?.index, 0)
            XCTAssertEqual(queue.fail(0, maxRetries: 2), attempt <= 2 ? .requeued(attempt: attempt + 1) : .exhausted(failures: 3))
        }
        XCTAssertNil(queue.next(size: 4))
        XCTAssertEqual(queue.segmentsRetried, 1)
        XCTAssertEqual(queue.abandoned.keys.sorted(), [0])
        XCTAssertFalse(queue.isComplete)
        XCTAssertNil(queue.invariantViolation)
    }

    /// A random walk of successes and failures, checking after every step that the retry queue, the in-flight set and
    /// the success set never share a segment and that all segments tile the file.
    func testInvariantsHoldOverARandomWalk() {
        var generator = SplitMix64(seed: 42)
        for round in 0..<50 {
            let size = Int64(1 + generator.next() % 5000)
            var queue = SegmentQueue(fileSize: size, alignedSize: round % 2 == 0 ? 300 : nil)
            var steps = 0
            while !queue.isComplete, steps < 10_000 {
                steps += 1
                let segmentSize = round % 2 == 0 ? 300 : Int64(1 + generator.next() % 700)
                if queue.inFlight.count < 4, let segment = queue.next(size: segmentSize) {
                    if queue.failures[segment.index] == nil { XCTAssertLessThanOrEqual(segment.length, segmentSize) }
                } else if let index = queue.inFlight.keys.sorted().first {
                    if generator.next() % 10 < 3 { queue.fail(index, maxRetries: .max) } else { queue.succeed(index) }
                }
                if let violation = queue.invariantViolation { return XCTFail("round \(round) step \(steps): \(violation)") }
            }
            XCTAssertTrue(queue.isComplete, "round \(round) did not finish in 10 000 steps")
            XCTAssertEqual(queue.succeeded.values.reduce(0) { $0 + $1.length }, size)
        }
    }

    func testResumeSkipsDoneSegmentsAndKeepsFixedIndices() {
        let done = [Segment(index: 0, offset: 0, length: 4), Segment(index: 2, offset: 8, length: 4)]
        var queue = SegmentQueue(fileSize: 14, done: done, alignedSize: 4)
        XCTAssertEqual(queue.succeeded.count, 2)
        XCTAssertEqual(queue.uncarvedBytes, 6)
        XCTAssertEqual(queue.next(size: 4), Segment(index: 1, offset: 4, length: 4))
        XCTAssertEqual(queue.next(size: 4), Segment(index: 3, offset: 12, length: 2))
        XCTAssertNil(queue.next(size: 4))
        XCTAssertNil(queue.invariantViolation)
    }

    func testUnalignedResumeNumbersNewSegmentsAfterTheKnownOnes() {
        let done = [Segment(index: 0, offset: 0, length: 3), Segment(index: 1, offset: 3, length: 5)]
        var queue = SegmentQueue(fileSize: 20, done: done)
        XCTAssertEqual(queue.next(size: 8), Segment(index: 2, offset: 8, length: 8))
        XCTAssertEqual(queue.next(size: 8), Segment(index: 3, offset: 16, length: 4))
    }

    func testContentRangeAndTemplate() {
        let segment = Segment(index: 3, offset: 100, length: 50)
        XCTAssertEqual(segment.contentRange(total: 1000), "bytes 100-149/1000")
        XCTAssertEqual(segment.url(fromTemplate: "http://h/p?i={index}&o={offset}&n={length}"), "http://h/p?i=3&o=100&n=50")
    }
}

