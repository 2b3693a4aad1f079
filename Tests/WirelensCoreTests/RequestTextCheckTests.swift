import WirelensCore
import XCTest

/// CR, LF and NUL anywhere in a header or a method are refused, named, and the value never shown.
final class RequestTextCheckTests: XCTestCase {
    func testEveryPlaceOfEveryForbiddenCharacter() {
        let forbidden: [(Character, String)] = [("\r", "a carriage return (CR)"), ("\n", "a line feed (LF)"),
                                                ("\u{0}", "a NUL byte")]
        for (character, name) in forbidden {
            for value in ["\(character)", "a\(character)", "\(character)b", "a\(character)b", "a\r\n\(character)b"] {
                let problem = RequestTextCheck.problem(name: "X-Token", value: "secret" + value)
                XCTAssertNotNil(problem, value.debugDescription)
                XCTAssertTrue(problem?.contains("header 'X-Token'") ?? false, problem ?? "")
                XCTAssertFalse(problem?.contains("secret") ?? true, "the value stays out: \(problem ?? "")")
                XCTAssertFalse(problem?.contains(where: \.isNewline) ?? true)
            }
            let named = RequestTextCheck.problem(name: "X\(character)Y", value: "v")
            XCTAssertTrue(named?.contains(name) ?? false, named ?? "")
            XCTAssertFalse(named?.contains(where: { $0.isNewline || $0 == "\u{0}" }) ?? true, named ?? "")
            XCTAssertNotNil(RequestTextCheck.problem(method: "GET\(character)"), name)
        }
        XCTAssertEqual(RequestTextCheck.problem(name: "X", value: "a\r\nb"),
                       "the value of header 'X' contains a carriage return (CR); a header value is one line without CR, LF or NUL")
        XCTAssertEqual(RequestTextCheck.problem(method: "GET / HTTP/1.1\r\nX: y"),
                       "the method 'GET / HTTP/1.1\\r\\nX: y' contains a carriage return (CR); a method is one word without CR, LF or NUL")
    }

    func testOrdinaryHeadersAndMethodsPass() {
        for (name, value) in [("Authorization", "Bearer abc"), ("X-Tab", "a\tb"), ("X-Unicode", "é ü ✓"), ("X-Empty", ""),
                              ("Cookie", "a=1; b=2")] {
            XCTAssertNil(RequestTextCheck.problem(name: name, value: value), name)
        }
        for method in ["GET", "PUT", "PROPFIND", "M-SEARCH"] {
            XCTAssertNil(RequestTextCheck.problem(method: method), method)
        }
        XCTAssertEqual(RequestTextCheck.oneLine("a\r\nb\u{0}c"), "a\\r\\nb\\0c")
    }
}
