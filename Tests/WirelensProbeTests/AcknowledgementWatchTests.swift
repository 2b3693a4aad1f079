import XCTest
@testable import WirelensProbe

/// When an upload's request ends: the moment the kernel's send queue was seen empty after the whole body was
/// written (SIOCOUTQ counts bytes not yet acknowledged by the peer), bounded by the response's first byte.
final class AcknowledgementWatchTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    /// Written, then the queue seen empty: acknowledged at that look.
    func testAcknowledgedWhenTheQueueEmpties() {
        var watch = AcknowledgementWatch()
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: nil), .idle, "still reading the body")
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: false, socketKnown: true, bodyReadEnd: 10 * ms), .waiting,
                       "libcurl has not handed every byte over")
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms), .readSendQueue)
        XCTAssertEqual(watch.sendQueue(0, at: 12 * ms, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(watch.acknowledged, 12 * ms)
        XCTAssertEqual(watch.look(responseStart: 40 * ms, bodyReadEnd: 10 * ms), .settled, "the response changes nothing")
        XCTAssertEqual(watch.acknowledged, 12 * ms)
    }

    /// Still queued at the last look, then the response began: the response's first byte is the acknowledgement
    /// when it came within the slack of that look, else the last look is all that is known.
    func testStillQueuedThenTheResponse() {
        func queued(at look: Int64) -> AcknowledgementWatch {
            var watch = AcknowledgementWatch()
            _ = watch.look(responseStart: nil, bodyReadEnd: 10 * ms)
            _ = watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms)
            XCTAssertEqual(watch.sendQueue(65_536, at: look, bodyReadEnd: 10 * ms), .waiting)
            XCTAssertNil(watch.acknowledged, "bytes still in the send queue are not acknowledged")
            return watch
        }
        var soon = queued(at: 20 * ms)
        XCTAssertEqual(soon.look(responseStart: 24 * ms, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(soon.acknowledged, 24 * ms)
        var late = queued(at: 20 * ms)
        XCTAssertEqual(late.look(responseStart: 20 * ms + AcknowledgementWatch.slack + 1, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(late.acknowledged, 20 * ms)

        // A look that finds the upload incomplete again (libcurl rewound) keeps the last queued look.
        var again = queued(at: 20 * ms)
        _ = again.look(responseStart: nil, bodyReadEnd: 10 * ms)
        XCTAssertEqual(again.uploaded(complete: false, socketKnown: true, bodyReadEnd: 10 * ms), .waiting)
        XCTAssertEqual(again.state, .queued(at: 20 * ms))
    }

    /// Without a socket to ask, or a socket that cannot tell, the written end stands; a response before any look
    /// leaves no acknowledgement.
    func testWrittenEndStandsWhenTheKernelCannotTell() {
        var noSocket = AcknowledgementWatch()
        _ = noSocket.look(responseStart: nil, bodyReadEnd: 10 * ms)
        XCTAssertEqual(noSocket.uploaded(complete: true, socketKnown: false, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(noSocket.acknowledged, 10 * ms)

        var unknown = AcknowledgementWatch()
        _ = unknown.look(responseStart: nil, bodyReadEnd: 10 * ms)
        _ = unknown.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms)
        XCTAssertEqual(unknown.sendQueue(nil, at: 30 * ms, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(unknown.acknowledged, 10 * ms)

        var missed = AcknowledgementWatch()
        XCTAssertEqual(missed.look(responseStart: 5 * ms, bodyReadEnd: nil), .settled)
        XCTAssertNil(missed.acknowledged)
        XCTAssertTrue(missed.isSettled)
    }
}
