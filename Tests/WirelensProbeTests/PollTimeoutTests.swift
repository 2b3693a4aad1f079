import XCTest
@testable import WirelensProbe

/// `PollTimeout.millis` bounds the loop's wait in poll. Oracle: poll(2) takes whole milliseconds, so the wait is the
/// time left cut to milliseconds plus one (never before the deadline), at most one second, never negative.
final class PollTimeoutTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    func testWithoutADeadlineTheLoopWaitsASecondOrUntilTheNextUploadLook() {
        XCTAssertEqual(PollTimeout.millis(deadline: nil, lookMillis: 1000) { XCTFail("no clock needed"); return 0 }, 1000)
        XCTAssertEqual(PollTimeout.millis(deadline: nil, lookMillis: 4) { 0 }, 4)
    }

    func testADeadlineIsWaitedForRoundedUp() {
        // 2.5 ms left: 2 whole ms, plus 1.
        XCTAssertEqual(PollTimeout.millis(deadline: 12 * ms + ms / 2, lookMillis: 1000) { 10 * ms }, 3)
        XCTAssertEqual(PollTimeout.millis(deadline: 10 * ms, lookMillis: 1000) { 10 * ms }, 1, "due now: 1 ms")
        XCTAssertEqual(PollTimeout.millis(deadline: 10 * ms, lookMillis: 1000) { 15 * ms }, 0, "passed: no wait")
        XCTAssertEqual(PollTimeout.millis(deadline: 60_000 * ms, lookMillis: 1000) { 0 }, 1000, "a minute away: 1 s")
        XCTAssertEqual(PollTimeout.millis(deadline: 50 * ms, lookMillis: 2) { 0 }, 2, "an upload's look comes first")
    }
}
