import Foundation
import XCTest
import WirelensCore

/// `HeaderField.parse` against Foundation's trimming of the same lines (ASCII white space, as HTTP's OWS).
final class HeaderFieldTests: XCTestCase {
    func testParsesAsFoundationTrimsASCIIWhiteSpace() {
        let lines = [
            "Content-Type: text/plain\r\n", "Location:/next", "  X-Pad \t:\t value with  inner  spaces \t\r\n",
            "Retry-After: 120", "Empty:", "Empty-Spaced:   \r\n", "Colons: a:b:c", "Ünïcode-Value: café ☕\r\n",
            "Tab\tName: v", "Bare-CR: v\r",
        ]
        for line in lines {
            let field = HeaderField.parse(line)
            guard let colon = line.firstIndex(of: ":") else { return XCTFail(line) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(field, HeaderField(name: name, value: value), line)
        }
    }

    func testRefusesLinesWithoutANameOrAColon() {
        XCTAssertNil(HeaderField.parse("no colon here"))
        XCTAssertNil(HeaderField.parse(": value"))
        XCTAssertNil(HeaderField.parse("Two Words: value"))
    }
}
