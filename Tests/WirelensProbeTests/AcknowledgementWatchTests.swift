import XCTest
@testable import WirelensProbe

/// When an upload's request ends: once the whole body was written, the looks at the socket's TCP facts follow its end
/// (`BodyArrival`), bounded by the response's first byte.
final class AcknowledgementWatchTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    private func sample(at: Int64, acked: UInt64, inFlight: UInt64, notSent: UInt64) -> BodyArrival.Sample {
        BodyArrival.Sample(at: at, acked: acked, inFlight: inFlight, notSent: notSent, sendWindow: 1 << 20,
                           minRTT: 100_000, deliveryRate: 1_000_000)
    }

    /// Written, sent, then acknowledged: the watch settles at the look that saw the whole body acknowledged, with the
    /// arrival the looks place (the last byte left between the two looks; a 100 µs round trip: 50 µs one way).
    func testArrivalOnceTheWholeBodyIsAcknowledged() {
        var watch = AcknowledgementWatch()
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: nil), .idle, "still reading the body")
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: false, socketKnown: true, bodyReadEnd: 10 * ms), .waiting,
                       "libcurl has not handed every byte over")
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms), .readSocket)
        XCTAssertEqual(watch.socket(sample(at: 12 * ms, acked: 0, inFlight: 4000, notSent: 6000), bodyReadEnd: 10 * ms),
                       .waiting)
        XCTAssertNil(watch.arrival, "bytes still to be sent")
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms), .readSocket)
        XCTAssertEqual(watch.socket(sample(at: 14 * ms, acked: 9000, inFlight: 1000, notSent: 0), bodyReadEnd: 10 * ms),
                       .waiting)
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .readUploaded)
        XCTAssertEqual(watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms), .readSocket)
        XCTAssertEqual(watch.socket(sample(at: 40 * ms, acked: 10000, inFlight: 0, notSent: 0), bodyReadEnd: 10 * ms),
                       .settled)
        // Sent between 12 and 14 ms: 13 ms + 50 µs; the acknowledgement the look at 14 ms saw came between 12 and
        // 14 ms, and 1000 bytes to go at 1 MB/s put it at 14 ms - 50 µs, the later of the two.
        XCTAssertEqual(watch.arrival, 14 * ms - 50_000)
        XCTAssertEqual(watch.look(responseStart: 45 * ms, bodyReadEnd: 10 * ms), .settled, "the response changes nothing")
        XCTAssertEqual(watch.arrival, 14 * ms - 50_000)
    }

    /// The response began before the whole body was seen acknowledged (the server's ACK of the last segment rode on
    /// it): the looks still place the arrival, never after the response's first byte.
    func testTheResponseSettlesWhatTheLooksFollowed() {
        var watch = AcknowledgementWatch()
        _ = watch.look(responseStart: nil, bodyReadEnd: 10 * ms)
        _ = watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms)
        XCTAssertEqual(watch.socket(sample(at: 12 * ms, acked: 8552, inFlight: 1448, notSent: 0), bodyReadEnd: 10 * ms),
                       .waiting)
        XCTAssertEqual(watch.look(responseStart: 50 * ms, bodyReadEnd: 10 * ms), .settled)
        // Sent between 10 and 12 ms (11 ms + 50 µs); 1448 bytes to go at 1 MB/s from the acknowledgement seen
        // between 10 and 12 ms: 12.448 ms - 50 µs.
        XCTAssertEqual(watch.arrival, 12_448_000 - 50_000)
    }

    /// No look saw the last byte leave before the response: its first byte is the end when the last look was recent,
    /// else the last look is all that is known.
    func testStillUnsentThenTheResponse() {
        func unsent(at look: Int64) -> AcknowledgementWatch {
            var watch = AcknowledgementWatch()
            _ = watch.look(responseStart: nil, bodyReadEnd: 10 * ms)
            _ = watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms)
            XCTAssertEqual(watch.socket(sample(at: look, acked: 0, inFlight: 4000, notSent: 60_000), bodyReadEnd: 10 * ms),
                           .waiting)
            return watch
        }
        var soon = unsent(at: 20 * ms)
        XCTAssertEqual(soon.look(responseStart: 24 * ms, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(soon.arrival, 24 * ms)
        var late = unsent(at: 20 * ms)
        XCTAssertEqual(late.look(responseStart: 20 * ms + AcknowledgementWatch.slack + 1, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(late.arrival, 20 * ms)

        // A look that finds the upload incomplete again (libcurl rewound) forgets what the looks followed: that was
        // another send of the body.
        var again = unsent(at: 20 * ms)
        _ = again.look(responseStart: nil, bodyReadEnd: 10 * ms)
        XCTAssertEqual(again.uploaded(complete: false, socketKnown: true, bodyReadEnd: 10 * ms), .waiting)
        XCTAssertEqual(again.state, .sending)
    }

    /// Without a socket to ask, or a kernel that cannot tell, the written end stands; a response before any look
    /// leaves no arrival.
    func testWrittenEndStandsWhenTheKernelCannotTell() {
        var noSocket = AcknowledgementWatch()
        _ = noSocket.look(responseStart: nil, bodyReadEnd: 10 * ms)
        XCTAssertEqual(noSocket.uploaded(complete: true, socketKnown: false, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(noSocket.arrival, 10 * ms)

        var unknown = AcknowledgementWatch()
        _ = unknown.look(responseStart: nil, bodyReadEnd: 10 * ms)
        _ = unknown.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms)
        XCTAssertEqual(unknown.socket(nil, bodyReadEnd: 10 * ms), .settled)
        XCTAssertEqual(unknown.arrival, 10 * ms)

        var missed = AcknowledgementWatch()
        XCTAssertEqual(missed.look(responseStart: 5 * ms, bodyReadEnd: nil), .settled)
        XCTAssertNil(missed.arrival)
        XCTAssertTrue(missed.isSettled)
    }

    /// Events out of turn change nothing.
    func testEventsOutOfTurnAreInvalid() {
        var watch = AcknowledgementWatch()
        XCTAssertEqual(watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10 * ms), .invalid)
        XCTAssertEqual(watch.socket(nil, bodyReadEnd: 10 * ms), .invalid)
        _ = watch.look(responseStart: nil, bodyReadEnd: 10 * ms)
        XCTAssertEqual(watch.look(responseStart: nil, bodyReadEnd: 10 * ms), .invalid, "a look before the count came back")
        XCTAssertEqual(watch.state, .countingUpload)
    }
}
