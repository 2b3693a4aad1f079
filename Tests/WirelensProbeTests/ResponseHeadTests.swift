import WirelensCore
import XCTest
@testable import WirelensProbe

/// `ResponseHead` keeps the final response's status and kept lines from libcurl's header lines, without sockets.
final class ResponseHeadTests: XCTestCase {
    private func take(_ head: inout ResponseHead, _ line: String) -> Bool {
        let bytes = Array((line + "\r\n").utf8)
        return bytes.withUnsafeBufferPointer { head.take($0) }
    }

    func testAnInterimResponseIsNotTheFinalOnesHead() {
        var head = ResponseHead(capturesHeaders: true)
        XCTAssertFalse(take(&head, "HTTP/1.1 100 Continue"))
        XCTAssertFalse(take(&head, "Location: /ignored"), "lines of an interim response are not kept")
        XCTAssertEqual(head.status, 100)
        XCTAssertNil(head.location)
        XCTAssertTrue(take(&head, "HTTP/1.1 201 Created"))
        XCTAssertFalse(take(&head, "Content-Type: text/plain"))
        XCTAssertFalse(take(&head, "X-Other: 1"))
        XCTAssertEqual(head.status, 201)
        XCTAssertEqual(head.statusText, "Created")
        XCTAssertEqual(head.contentType, "text/plain")
        XCTAssertEqual(head.headers.map(\.name), ["Content-Type", "X-Other"])
        XCTAssertFalse(head.isRedirect)
    }

    func testARedirectKeepsItsLocationAndRetryAfterAndANewFinalResponseClearsThem() {
        var head = ResponseHead(capturesHeaders: false)
        XCTAssertTrue(take(&head, "HTTP/1.1 302 Found"))
        _ = take(&head, "location: https://example.test/next")
        _ = take(&head, "Retry-After: 5")
        XCTAssertTrue(head.isRedirect)
        XCTAssertEqual(head.location, "https://example.test/next")
        XCTAssertEqual(head.retryAfter, "5")
        XCTAssertTrue(head.headers.isEmpty, "other lines are kept only when headers are captured")
        XCTAssertTrue(take(&head, "HTTP/2 200"))
        XCTAssertNil(head.location)
        XCTAssertNil(head.retryAfter)
        XCTAssertFalse(head.isRedirect)
        XCTAssertEqual(head.status, 200)
    }

    func testA3xxWithoutLocationIsNotARedirect() {
        var head = ResponseHead(capturesHeaders: false)
        _ = take(&head, "HTTP/1.1 304 Not Modified")
        XCTAssertFalse(head.isRedirect)
    }
}
