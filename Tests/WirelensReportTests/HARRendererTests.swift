import Foundation
import WirelensCore
@testable import WirelensReport
import XCTest

/// The HAR mapping on hand-built transactions: timings, -1 for phases that did not happen, time, connection,
/// redaction and failures.
final class HARRendererTests: XCTestCase {
    func testRedirectAndRetryTask() throws {
        let document = HARRenderer.document(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        XCTAssertEqual(document.log.version, "1.2")
        let entries = document.log.entries
        XCTAssertEqual(entries.count, 3, "one entry per transaction")

        let first = entries[0]
        XCTAssertEqual(first.timings, HARDocument.Timings(blocked: 0.04, dns: 1.2, connect: 0.31 + 4.5, send: 2000,
                                                          wait: 12.345, receive: 0.85, ssl: 4.5))
        XCTAssertEqual(first.time, 0.04 + 1.2 + 0.31 + 4.5 + 2000 + 12.345 + 0.85, accuracy: 1e-9)
        XCTAssertEqual(first.startedDateTime, "2025-07-31T22:13:20.123456Z")
        XCTAssertEqual(first.request.url, "https://localhost:8443/upload?token=[REDACTED]", "records hold redacted URLs")
        XCTAssertEqual(first.request.queryString, [HARDocument.NameValue(name: "token", value: Redactor.mask)])
        XCTAssertEqual(first.request.bodySize, 3_000_000)
        XCTAssertEqual(first.request.headersSize, 180)
        XCTAssertEqual(first.request.headers, [
            HARDocument.NameValue(name: "User-Agent", value: "wirelens/\(WirelensVersion.current)"),
            HARDocument.NameValue(name: "Authorization", value: Redactor.mask),
            HARDocument.NameValue(name: "X-Trace", value: "1"),
        ])
        XCTAssertEqual(first.response.status, 307)
        XCTAssertEqual(first.response.httpVersion, "HTTP/1.1")
        XCTAssertEqual(first.connection, "0")
        XCTAssertEqual(first.serverIPAddress, "127.0.0.1")
        XCTAssertNil(first._error)
        XCTAssertTrue(first.comment?.hasSuffix("DNS over https (DoH answers after 1.1ms).") == true,
                      "how the name was resolved closes the comment: \(first.comment ?? "nil")")

        // The redirect on the reused connection: no DNS, connect or TLS, and no response before the timeout.
        let second = entries[1]
        XCTAssertEqual(second.timings.dns, -1)
        XCTAssertEqual(second.timings.connect, -1)
        XCTAssertEqual(second.timings.ssl, -1)
        XCTAssertEqual(second.timings.wait, 0, "HAR's wait may not be -1")
        XCTAssertEqual(second.time, 0.012 + 1900, accuracy: 1e-9)
        XCTAssertEqual(second.response.status, 0)
        XCTAssertEqual(second.response.bodySize, -1)
        XCTAssertEqual(second._error?.hasPrefix("timeout.idle: "), true)

        let third = entries[2]
        XCTAssertEqual(third.connection, "1")
        XCTAssertEqual(third.response.content.mimeType, "application/json")
        XCTAssertEqual(third.response.content.size, 1_536)
        XCTAssertEqual(third.response.headers.last, HARDocument.NameValue(name: "Set-Cookie", value: Redactor.mask))
    }

    func testLocalPortStandsInForAMissingConnectionId() throws {
        var tx = Fixtures.transaction(start: Fixtures.epoch, dns: 10, connect: 20, send: 5, wait: 6, receive: 7,
                                      connectionId: nil, localPort: 40000)
        tx.networkProtocolName = "h2"
        let entry = HARRenderer.entry(tx, requestHeaders: [])
        XCTAssertEqual(entry.connection, "40000")
        XCTAssertEqual(entry.request.httpVersion, "HTTP/2")
        XCTAssertEqual(entry.timings.ssl, -1)
        XCTAssertEqual(entry.timings.connect, 0.02)
    }

    func testRenderedTextHasTheSpecsKeysInOrder() throws {
        let bytes = try HARRenderer.render(Fixtures.report(tasks: Fixtures.manyTasks()))
        XCTAssertEqual(bytes.last, UInt8(ascii: "\n"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let log = try XCTUnwrap(json["log"] as? [String: Any])
        XCTAssertEqual((log["entries"] as? [Any])?.count, 10)
        let text = String(decoding: bytes, as: UTF8.self)
        let order = ["\"startedDateTime\"", "\"time\"", "\"request\"", "\"response\"", "\"cache\"", "\"timings\""]
        let positions = order.compactMap { text.range(of: $0)?.lowerBound }
        XCTAssertEqual(positions.count, order.count)
        XCTAssertEqual(positions, positions.sorted())
        XCTAssertFalse(text.contains("Bearer abc"), "the Authorization header is redacted")
    }
}
