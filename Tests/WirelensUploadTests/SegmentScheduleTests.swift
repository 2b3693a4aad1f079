import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensUpload

/// The segmented upload's schedule without sockets: curl's `--retry N` (N more tries after the first), the retry
/// queue at the tail, `--retry-max-time`, the give-up on a server failing everything, and a stop, each driven with
/// made-up verdicts.
final class SegmentScheduleTests: XCTestCase {
    private static let mib: Int64 = 1 << 20

    private func schedule(fileSize: Int64 = 4 * mib, sizing: SegmentSizer.Mode = .fixed(mib), parallel: Int = 2,
                          maxRetries: Int = 2, retryMaxTime: Int64? = nil) -> SegmentSchedule {
        var plan = UploadPlan(filePath: "/dev/null", fileSize: fileSize, baseURL: "http://127.0.0.1:1/u", sizing: sizing,
                              parallel: parallel, maxRetries: maxRetries)
        plan.retryMaxTime = retryMaxTime
        let section = UploadSection(file: plan.filePath, fileBytes: fileSize, url: plan.url, segmentMode: "fixed",
                                    parallel: parallel, maxRetries: maxRetries)
        return SegmentSchedule(plan: plan, queue: SegmentQueue(fileSize: fileSize), sizer: SegmentSizer(mode: sizing),
                               section: section)
    }

    private let record = Fixture.task(status: 503)

    private func finish(_ schedule: inout SegmentSchedule, _ next: (segment: Segment, attempt: Int),
                        _ verdict: SegmentVerdict, at elapsed: Int64 = 0) -> SegmentSchedule.Effect {
        schedule.finished(next.segment, attempt: next.attempt, verdict: verdict, record: record,
                          bodyBytes: next.segment.length, elapsedMicros: elapsed)
    }

    func testAtMostParallelInFlightAndEachAcceptedSegmentJournalled() throws {
        var s = schedule()
        let first = try XCTUnwrap(s.next(elapsedMicros: 0))
        let second = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertNil(s.next(elapsedMicros: 0), "two in flight with --parallel 2")
        XCTAssertEqual([first.segment.index, second.segment.index, first.attempt], [0, 1, 1])
        XCTAssertEqual(finish(&s, first, .accepted), .journal(first.segment))
        XCTAssertEqual(s.next(elapsedMicros: 0)?.segment.index, 2)
        XCTAssertEqual(s.section.peakInFlight, 2)
        XCTAssertEqual(s.sentBytes, Self.mib)
    }

    func testAFailedSegmentIsRetriedAfterTheFreshOnesThenGivenUpAfterRetryCountMoreTries() throws {
        var s = schedule(fileSize: 2 * Self.mib, parallel: 1, maxRetries: 2)
        let zero = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(finish(&s, zero, .retryable("503")), .none)
        let one = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(one.segment.index, 1, "the retry queue is at the tail: fresh segments first")
        XCTAssertEqual(finish(&s, one, .accepted), .journal(one.segment))
        var attempts = [zero.attempt]
        var effect = SegmentSchedule.Effect.none
        for _ in 0..<5 where s.failure == nil {
            let retry = try XCTUnwrap(s.next(elapsedMicros: 0))
            attempts.append(retry.attempt)
            effect = finish(&s, retry, .retryable("503"))
        }
        XCTAssertEqual(attempts, [1, 2, 3], "--retry 2: the first try and two more")
        XCTAssertEqual(effect, .cancelEngine)
        XCTAssertEqual(s.failure?.message.contains("failed 3 times, the last: 503; giving up (--retry 2)"), true,
                       s.failure?.message ?? "no failure")
        XCTAssertEqual(s.failure?.ending, .refused, "a task without a transport error that failed is refused")
        XCTAssertNil(s.next(elapsedMicros: 0), "nothing starts after a give-up")
        XCTAssertEqual(s.section.failedAttempts, 3)
        XCTAssertEqual(s.section.bytesSentTwice, 3 * Self.mib)
    }

    func testPastRetryMaxTimeAFailedSegmentIsNotTriedAgain() throws {
        var s = schedule(maxRetries: 10, retryMaxTime: 1_000_000)
        let zero = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(finish(&s, zero, .retryable("timeout"), at: 1_500_000), .cancelEngine)
        XCTAssertEqual(s.failure?.message.contains("--retry-max-time 1.00s passed"), true, s.failure?.message ?? "")
    }

    func testAServerFailingEverythingStopsBeforeEverySegmentBurnsItsRetries() throws {
        var s = schedule(fileSize: 64 * Self.mib, parallel: 2, maxRetries: 100)
        var effects: [SegmentSchedule.Effect] = []
        for _ in 0..<20 where s.failure == nil {
            let next = try XCTUnwrap(s.next(elapsedMicros: 0))
            effects.append(finish(&s, next, .retryable("500")))
        }
        XCTAssertEqual(effects.count, SegmentSchedule.failuresInARowLimit(parallel: 2), "max(8, 2 x parallel)")
        XCTAssertEqual(effects.last, .cancelEngine)
        XCTAssertEqual(s.failure?.message.hasPrefix("8 attempts in a row failed"), true, s.failure?.message ?? "")
    }

    func testAFatalAnswerStopsTheUploadAtOnce() throws {
        var s = schedule()
        let zero = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(finish(&s, zero, .fatal("not the segment protocol")), .cancelEngine)
        XCTAssertEqual(s.failure?.ending, .unreadableAnswer)
    }

    func testADroppedAttemptInterruptsAndItsSegmentIsNotCountedSent() throws {
        var s = schedule()
        let zero = try XCTUnwrap(s.next(elapsedMicros: 0))
        s.dropped(zero.segment)
        XCTAssertTrue(s.interrupted)
        XCTAssertNil(s.next(elapsedMicros: 0))
        s.close()
        XCTAssertEqual([s.section.segmentsSent, s.section.segmentsTotal], [0, 4])
        XCTAssertNil(s.failure, "a stop is an interruption, not a failure")
    }

    func testAutoSizingSendsTheFirstSegmentAloneToMeasure() throws {
        var s = schedule(fileSize: 1024 * Self.mib, sizing: .auto, parallel: 4)
        let first = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertNil(s.next(elapsedMicros: 0), "nothing beside the measuring segment")
        _ = s.finished(first.segment, attempt: 1, verdict: .accepted,
                       record: Fixture.task(startedAt: 0, endedAt: 100_000, status: 200),
                       bodyBytes: first.segment.length, elapsedMicros: 100_000)
        var started = 0
        while s.next(elapsedMicros: 100_000) != nil, started < 10 { started += 1 }
        XCTAssertEqual(started, 4, "then --parallel 4 at once")
        XCTAssertEqual(s.section.segmentSizes.count, 2, "the first size, then the measured one")
    }

    // The end of an upload. Oracle: the domain brief (done when every segment was accepted; the upload is checked end
    // to end, the server's assembled size and SHA-256 against the file's) with SHA-256 of the empty input,
    // e3b0c442…b855 (FIPS 180-4's well-known value), standing for the file's digest.
    private static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// A one-segment upload whose segment was accepted, closed.
    private func sentInFull() throws -> SegmentSchedule {
        var s = schedule(fileSize: Self.mib, parallel: 1)
        let only = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(finish(&s, only, .accepted), .journal(only.segment))
        s.close()
        return s
    }

    func testAnAssembledFileOfTheFilesSizeAndDigestVerifiesTheUpload() throws {
        var s = try sentInFull()
        XCTAssertTrue(s.mayComplete)
        s.assembled(size: Self.mib, sha256: Self.emptySHA256, fileSHA256: Self.emptySHA256)
        XCTAssertEqual(s.end(), .completed)
        XCTAssertEqual(s.section.verified, true)
        XCTAssertEqual(s.section.serverBytes, Self.mib)
        XCTAssertNil(s.section.failure)
    }

    func testAnAssembledFileOfAnotherSizeOrAnUnreadableFileFailsTheCheck() throws {
        var short = try sentInFull()
        short.assembled(size: Self.mib - 1, sha256: Self.emptySHA256, fileSHA256: Self.emptySHA256)
        XCTAssertEqual(short.end(), .verificationFailed)
        XCTAssertNotEqual(short.section.verified, true)
        let message = short.section.failure ?? ""
        XCTAssertTrue(message.contains("1048575 bytes") && message.contains("the file: 1048576 bytes"), message)
        var unread = try sentInFull()
        unread.assembled(size: Self.mib, sha256: Self.emptySHA256, fileSHA256: nil)
        XCTAssertEqual(unread.end(), .verificationFailed)
        XCTAssertTrue(unread.section.failure?.contains("SHA-256 unreadable") ?? false, unread.section.failure ?? "")
    }

    func testACompleteCallThatFailedOrWasStoppedEndsTheUpload() throws {
        var refused = try sentInFull()
        refused.completeFailed("answered 409", ending: .refused)
        XCTAssertFalse(refused.mayComplete)
        XCTAssertEqual(refused.end(), .refused)
        XCTAssertEqual(refused.section.failure, "answered 409")
        var stopped = try sentInFull()
        stopped.completeInterrupted()
        XCTAssertEqual(stopped.end(), .interrupted)
        XCTAssertEqual(stopped.section.failure, "interrupted before every segment was sent")
    }

    func testAFailureIsTheOutcomeEvenWhenTheStopInterruptedTheRest() throws {
        var s = schedule(fileSize: 2 * Self.mib, parallel: 2, maxRetries: 0)
        let first = try XCTUnwrap(s.next(elapsedMicros: 0))
        let second = try XCTUnwrap(s.next(elapsedMicros: 0))
        XCTAssertEqual(finish(&s, first, .fatal("answered 404")), .cancelEngine)
        _ = finish(&s, second, .cancelled)
        s.close()
        XCTAssertFalse(s.mayComplete)
        XCTAssertEqual(s.end(), .unreadableAnswer, "a fatal verdict with no transport error: the answer was not the protocol's")
        XCTAssertEqual(s.section.failure, "answered 404")
    }
}
