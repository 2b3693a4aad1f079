import Foundation
import XCTest
import WirelensCore
@testable import WirelensProbe

/// `RawHeader.value` reads a header line's value from libcurl's bytes as `HeaderField.parse` reads the String.
final class RawHeaderTests: XCTestCase {
    func testValueIsWhatTheFieldParserGives() {
        for line in ["Content-Type: text/plain\r\n", "Location:/next\r\n", "Retry-After:  \t 120 \r\n", "Empty:\r\n",
                     "X-Colons: a:b:c\r\n", "X-Utf8: café ☕\r\n"] {
            let bytes = Array(line.utf8)
            let value = bytes.withUnsafeBufferPointer { RawHeader.value($0) }
            XCTAssertEqual(value, HeaderField.parse(line)?.value, line)
        }
        XCTAssertNil(Array("no colon\r\n".utf8).withUnsafeBufferPointer { RawHeader.value($0) })
    }

    /// The reason phrase read on the bytes is Foundation's trimming of the text after the status code, for the
    /// status lines HTTP allows (SP, HTAB, visible ASCII and obs-text inside; CR LF at the end).
    func testReasonPhraseIsFoundationsTrimming() {
        for line in ["HTTP/1.1 200 OK\r\n", "HTTP/1.1 404 Not Found\r\n", "HTTP/1.1 204 \r\n", "HTTP/2 200\r\n",
                     "HTTP/1.0 500  \t Internal\tServer  Error \t\r\n", "HTTP/1.1 200 Très bien\r\n", "HTTP/1.1 201 Created"] {
            let bytes = Array(line.utf8)
            let phrase = bytes.withUnsafeBufferPointer { RawHeader.reasonPhrase($0) }
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            let expected = parts.count > 2 ? String(parts[2]).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            XCTAssertEqual(phrase, expected, line)
        }
    }
}
