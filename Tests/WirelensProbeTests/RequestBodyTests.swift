import WirelensCore
import XCTest
@testable import WirelensProbe

/// `RequestBody` answers libcurl's read and seek callbacks without a socket. Oracle: libcurl's documented callback
/// semantics (CURLOPT_READFUNCTION: up to the buffer's size per call, 0 at the end; with a known CURLOPT_INFILESIZE
/// libcurl does not call again after the last byte; CURLOPT_SEEKFUNCTION: a stream that cannot seek answers
/// CANTSEEK) and the body's size.
final class RequestBodyTests: XCTestCase {
    private func read(_ body: inout RequestBody, capacity: Int, at now: Int64) throws -> Int {
        var buffer = [UInt8](repeating: 0, count: capacity)
        return try buffer.withUnsafeMutableBytes { raw in
            try body.read(into: raw.baseAddress!, capacity: capacity, now: { now })
        }
    }

    func testABodyOfKnownSizeEndsWithTheReadThatHandsOverItsLastByte() throws {
        var body = RequestBody(.generated(size: 10))
        XCTAssertTrue(body.isSent)
        XCTAssertEqual(try read(&body, capacity: 4, at: 1), 4)
        XCTAssertEqual(try read(&body, capacity: 4, at: 2), 4)
        XCTAssertNil(body.readEnd)
        XCTAssertEqual(try read(&body, capacity: 4, at: 3), 2, "10 = 4 + 4 + 2")
        XCTAssertEqual(body.readEnd, 3, "the third read handed over byte 10 of 10")
        XCTAssertEqual(body.sentBytes, 10)
        XCTAssertEqual(try read(&body, capacity: 4, at: 9), 0)
        XCTAssertEqual(body.readEnd, 3, "a later call at the end does not move it")
    }

    func testASeekInsideTheBodyRewindsAndReopensTheEnd() throws {
        var body = RequestBody(.generated(size: 10))
        _ = try read(&body, capacity: 10, at: 5)
        XCTAssertEqual(body.readEnd, 5)
        XCTAssertFalse(body.seek(to: 11), "past the body's 10 bytes")
        XCTAssertFalse(body.seek(to: -1))
        XCTAssertTrue(body.seek(to: 4))
        XCTAssertNil(body.readEnd, "6 bytes are to be sent again")
        XCTAssertEqual(try read(&body, capacity: 10, at: 8), 6)
        XCTAssertEqual(body.readEnd, 8)
        XCTAssertTrue(body.seek(to: 10), "the end itself is inside")
    }

    func testAPipeCannotGoBack() {
        var body = RequestBody(.pipe(path: "/nonexistent/fifo", size: 100))
        XCTAssertTrue(body.seek(to: 0), "staying where it is needs no seek")
        XCTAssertFalse(body.seek(to: 50))
    }

    func testNoBodyIsNotSent() throws {
        var body = RequestBody(.none)
        XCTAssertFalse(body.isSent)
        XCTAssertEqual(try read(&body, capacity: 4, at: 7), 0)
        XCTAssertEqual(body.readEnd, 7)
    }
}
