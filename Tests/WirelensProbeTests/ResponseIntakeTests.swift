import WirelensCore
import XCTest
@testable import WirelensProbe

/// `ResponseIntake` counts and writes a response's body without a socket. Oracle: curl's `-L` (the body of a
/// redirect it follows is not written to the output, every byte received is counted) and a clock the test moves.
final class ResponseIntakeTests: XCTestCase {
    private func header(_ intake: inout ResponseIntake, _ line: String) {
        let bytes = Array((line + "\r\n").utf8)
        _ = bytes.withUnsafeBufferPointer { intake.head.take($0) }
    }

    private func body(_ intake: inout ResponseIntake, _ text: String, at start: Int64, writeTakes: Int64) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { raw in
            try intake.takeBody(raw.baseAddress, count: raw.count, at: start, clock: { start + writeTakes })
        }
    }

    func testTheBodyOfARedirectToFollowIsCountedButNotWritten() throws {
        var intake = ResponseIntake(sink: .memory(limit: 100), capturesHeaders: false, followsRedirects: true)
        header(&intake, "HTTP/1.1 302 Found")
        header(&intake, "Location: /next")
        try body(&intake, "moved", at: 10, writeTakes: 3)
        XCTAssertEqual(intake.bodyBytes, 5)
        XCTAssertNil(intake.writer.body, "not the output's")
        XCTAssertEqual(intake.writeTime, 0, "nothing was written")
        header(&intake, "HTTP/1.1 200 OK")
        try body(&intake, "final", at: 20, writeTakes: 700)
        XCTAssertEqual(intake.bodyBytes, 10, "5 + 5 received")
        XCTAssertEqual(intake.writer.body.map { String(decoding: $0.bytes, as: UTF8.self) }, "final")
        XCTAssertEqual(intake.writeTime, 700)
    }

    func testARedirectNotFollowedIsTheOutput() throws {
        var intake = ResponseIntake(sink: .memory(limit: 100), capturesHeaders: false, followsRedirects: false)
        header(&intake, "HTTP/1.1 301 Moved Permanently")
        header(&intake, "Location: /elsewhere")
        try body(&intake, "moved", at: 0, writeTakes: 1)
        XCTAssertEqual(intake.writer.body.map { String(decoding: $0.bytes, as: UTF8.self) }, "moved")
    }

    func testADiscardingSinkOnlyCounts() throws {
        var intake = ResponseIntake(sink: .discard, capturesHeaders: false, followsRedirects: false)
        header(&intake, "HTTP/1.1 200 OK")
        try body(&intake, "abc", at: 0, writeTakes: 50)
        XCTAssertEqual(intake.bodyBytes, 3)
        XCTAssertFalse(intake.writesBody)
        XCTAssertEqual(intake.writeTime, 0)
    }
}
