import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// The one JSON string escaper: Python's json module reads back every character below 0x80 and some beyond, and
/// the escapes are RFC 8259's short forms where it has them.
final class JSONStringLiteralTests: XCTestCase {
    func testPythonReadsBackEveryASCIICharacterAndUnicode() throws {
        let text = String(String.UnicodeScalarView((0..<0x80).compactMap(Unicode.Scalar.init))) + "é€𝄞\u{7F}\u{2028}"
        let literal = JSONStringLiteral.quoted(text)
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c",
            "import json,sys; s=json.loads(sys.argv[1]); "
                + "print(s == ''.join(map(chr, range(0x80))) + 'é€\\U0001d11e\\x7f\\u2028')", literal])
        XCTAssertEqual(outcome.stdout, "True\n", outcome.stderr)
    }

    func testShortEscapesAndPlainText() {
        XCTAssertEqual(JSONStringLiteral.quoted("a\"b\\c\nd\re\tf\u{1}\u{1F}"), #""a\"b\\c\nd\re\tf\u0001\u001f""#)
        XCTAssertEqual(JSONStringLiteral.quoted("/plain/ü"), #""/plain/ü""#, "no escape for / or non-ASCII")
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        JSONStringLiteral.append("", to: &bytes)
        XCTAssertEqual(bytes, Array(#"["""#.utf8))
    }
}
