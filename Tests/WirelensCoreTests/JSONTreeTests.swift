import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensCore

/// `JSONTree`, the reader that hands a byte writer's JSON to other encoders, read against Foundation's
/// JSONSerialization: the same strings, numbers and member order from the same text.
final class JSONTreeTests: XCTestCase {
    /// Seeded strings with quotes, backslashes, control characters and astral characters (written with `\u`
    /// escapes and surrogate pairs by Python's json module): JSONTree reads the string JSONSerialization reads.
    func testEscapedStringsReadAsFoundationReadsThem() throws {
        var g = SplitMix64(seed: 7)
        let alphabet: [String] = ["a", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "日", "🙂", " ", "\u{7F}"]
        var texts: [String] = []
        for _ in 0..<200 {
            texts.append((0..<Int.random(in: 0...12, using: &g)).map { _ in alphabet.randomElement(using: &g)! }.joined())
        }
        let path = WirelensCLI.temporaryPath("strings.json")
        defer { unlink(path) }
        try JSONSerialization.data(withJSONObject: texts).write(to: URL(fileURLWithPath: path))
        let python = try ProcessRunner.run("/usr/bin/python3", ["-c", """
            import json, sys
            sys.stdout.write(json.dumps(json.load(open(sys.argv[1], encoding="utf-8")), ensure_ascii=True))
            """, path], timeout: 30)
        XCTAssertEqual(python.status, 0, python.stderr)
        let escaped = Array(python.stdout.utf8)
        XCTAssertTrue(escaped.contains(UInt8(ascii: "\\")), "Python escaped the text")
        let foundation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(escaped)) as? [String])
        XCTAssertEqual(foundation, texts)
        XCTAssertEqual(try JSONTree(parsing: escaped), .array(foundation.map(JSONTree.string)))
    }

    /// Numbers, literals and nested containers, members in their order; text that is not one value is refused
    /// with the offset where reading stopped.
    func testValuesKeepTheirKindAndOrder() throws {
        let text = #"{"b":[1,-2,3.5,1e-05,true,false,null],"a":{},"c":[],"d":{"z":"x"}}"#
        XCTAssertEqual(try JSONTree(parsing: Array(text.utf8)), .object([
            ("b", .array([.integer(1), .integer(-2), .number(3.5), .number(1e-05), .bool(true), .bool(false), .null])),
            ("a", .object([])), ("c", .array([])), ("d", .object([("z", .string("x"))])),
        ]))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["a", "b", "c", "d"])
        XCTAssertThrowsError(try JSONTree(parsing: Array(#"{"a":1"#.utf8))) { error in
            XCTAssertEqual(error as? JSONTree.Malformed, JSONTree.Malformed(offset: 6))
        }
        XCTAssertThrowsError(try JSONTree(parsing: Array("[1] 2".utf8)))
    }
}
