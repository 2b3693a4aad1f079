import Foundation
import WirelensTestSupport
import XCTest

@testable import WirelensReport

/// The text report's layout helpers against independent readings of the same text.
final class TextLayoutTests: XCTestCase {
    /// Printable ASCII, each C0 control and DEL, C1 controls (CSI U+009B, NEL U+0085), escape sequences, non-ASCII
    /// letters, combining marks, emoji and a flag: `sanitize` replaces exactly the scalars Python's `unicodedata`
    /// puts in general category Cc with "?", whichever path (the ASCII one or the scalar one) the text takes.
    func testSanitizeReplacesTheControlCharactersThatUnicodedataNames() throws {
        var texts = ["GET /bytes/1k.bin", "", " ~", "a\u{7F}b", "\u{1B}[31mred\u{1B}[0m", "tab\there", "line\r\n",
                     "caf\u{E9}", "e\u{301}", "\u{9B}31m", "next\u{85}line", "µs → —", "🧪 ok", "🇫🇷", "\u{0}",
                     "/search?q=x&y=%1B", "zero\u{200B}width"]
        texts += (0..<32).map { "c\(Character(Unicode.Scalar(UInt8($0))))c" }
        let path = WirelensCLI.temporaryPath("texts.json")
        defer { unlink(path) }
        try JSONSerialization.data(withJSONObject: texts).write(to: URL(fileURLWithPath: path))
        let python = try ProcessRunner.run("/usr/bin/python3", ["-c", """
            import json, sys, unicodedata
            texts = json.load(open(sys.argv[1], encoding="utf-8"))
            out = ["".join("?" if unicodedata.category(c) == "Cc" else c for c in t) for t in texts]
            sys.stdout.write(json.dumps(out))
            """, path], timeout: 60)
        XCTAssertEqual(python.status, 0, python.stderr)
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [String])
        XCTAssertEqual(expected.count, texts.count)
        for (text, want) in zip(texts, expected) {
            XCTAssertEqual(Array(TextLayout.sanitize(text).unicodeScalars), Array(want.unicodeScalars),
                           "sanitize(\(text.debugDescription))")
        }
    }

    /// `truncated` keeps the first `width` Characters as the standard library counts them: ASCII and multi-byte
    /// text, shorter, as long as and longer than the width, and text whose bytes exceed the width but whose
    /// characters do not (it is kept whole).
    func testTruncatedKeepsTheFirstCharacters() {
        let texts = ["", "abc", String(repeating: "x", count: 76), String(repeating: "y", count: 77),
                     String(repeating: "µ", count: 50), String(repeating: "→", count: 90), "🇫🇷🇫🇷🇫🇷", "e\u{301}e\u{301}"]
        for text in texts {
            for width in [0, 1, 2, 3, 76] {
                let got = TextLayout.truncated(text, to: width)
                XCTAssertEqual(got.count, min(text.count, width), "\(text.debugDescription) to \(width)")
                XCTAssertTrue(text.hasPrefix(got), "\(text.debugDescription) to \(width)")
            }
        }
        XCTAssertEqual(TextLayout.truncated(String(repeating: "µ", count: 50), to: 76).count, 50, "100 bytes, 50 characters")
    }
}
