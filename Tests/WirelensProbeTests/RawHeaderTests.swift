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
}
