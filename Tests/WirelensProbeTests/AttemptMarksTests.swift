import WirelensCore
import XCTest
@testable import WirelensProbe

/// `AttemptMarks` places one attempt's instants without a clock or a socket. Oracle: the metric table of
/// docs/architecture.md (requestEnd is the last HEADER_OUT/DATA_OUT before the response or the read callback's end of
/// body, whichever is later; Expect: 100-continue is read from the request headers) and the domain brief (a resend
/// after a dead connection is a transaction of its own, starting when libcurl resent it).
final class AttemptMarksTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    func testTheRequestEndsAtItsLastWriteOrTheBodysEndWhicheverIsLater() {
        var marks = AttemptMarks(kind: .initial, startingAt: 0)
        XCTAssertNil(marks.requestEnd(bodyReadEnd: nil), "nothing written, no body read: no request end")
        marks.noteHeaderOut(bytes: 120, at: 10 * ms) { false }
        marks.noteBodyOut(at: 20 * ms)
        XCTAssertEqual(marks.requestEnd(bodyReadEnd: nil), 20 * ms)
        XCTAssertEqual(marks.requestEnd(bodyReadEnd: 25 * ms), 25 * ms, "the body's end came after the last write")
        XCTAssertEqual(marks.requestEnd(bodyReadEnd: 15 * ms), 20 * ms, "the last write came after the body's end")
        XCTAssertEqual(marks.lastActivity, 20 * ms)
    }

    func testWritesAfterTheResponseBeganDoNotMoveTheRequestEnd() {
        var marks = AttemptMarks(kind: .initial, startingAt: 0)
        marks.noteHeaderOut(bytes: 80, at: 3 * ms) { false }
        marks.responseStart = 9 * ms
        marks.noteBodyOut(at: 12 * ms)
        marks.noteHeaderOut(bytes: 40, at: 13 * ms) { XCTFail("only the first header write is read"); return true }
        XCTAssertEqual(marks.requestEnd(bodyReadEnd: nil), 3 * ms)
        XCTAssertEqual(marks.firstBodyOutAt, 12 * ms, "the first body write is kept whenever it came")
        XCTAssertEqual(marks.headerOutAt, 3 * ms)
        XCTAssertEqual(marks.headerBytesOut, 120, "every HEADER_OUT byte of the attempt counts: 80 + 40")
        XCTAssertEqual(marks.lastActivity, 13 * ms, "any write is activity for the idle timeout")
    }

    func testTheFirstHeaderWriteTellsWhetherTheRequestAskedForContinue() {
        var marks = AttemptMarks(kind: .initial, startingAt: 0)
        marks.noteHeaderOut(bytes: 200, at: 1 * ms) { true }
        XCTAssertTrue(marks.expectSent)
    }

    func testAResendIsARetryOfItsOwnStartingWhenLibcurlResent() {
        var marks = AttemptMarks(kind: .redirect, retryWait: nil, startingAt: 0)
        marks.connectionReady = 2 * ms
        marks.noteHeaderOut(bytes: 100, at: 3 * ms) { false }
        marks.connectionClosed = 4 * ms
        XCTAssertTrue(marks.activity.connectionReady)
        let resend = AttemptMarks.resend(at: 5 * ms)
        XCTAssertEqual(resend.kind, .retry)
        XCTAssertEqual(resend.fetchStart, 5 * ms)
        XCTAssertEqual(resend.lastActivity, 5 * ms)
        XCTAssertNil(resend.connectionReady)
        XCTAssertNil(resend.headerOutAt)
        XCTAssertNil(resend.connectionClosed)
        XCTAssertEqual(resend.headerBytesOut, 0)
        XCTAssertFalse(resend.activity.connectionReady, "the resend waits for a connection of its own")
    }
}
