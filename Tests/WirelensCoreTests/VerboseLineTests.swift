import WirelensCore
import XCTest

/// `-v`'s lines: curl's prefixes, and no secret in any of them.
final class VerboseLineTests: XCTestCase {
    func testRequestBlockIsSplitPrefixedAndRedacted() {
        let block = "GET /a?token=t0k&x=1 HTTP/1.1\r\nHost: a.test\r\nAuthorization: Basic Ym9iOnB3\r\nCookie: s=1\r\n\r\n"
        XCTAssertEqual(VerboseLine.lines(.headerOut, block), [
            "> GET /a?token=[REDACTED]&x=1 HTTP/1.1", "> Host: a.test", "> Authorization: [REDACTED]",
            "> Cookie: [REDACTED]", "> ",
        ])
    }

    func testResponseLinesAndText() {
        XCTAssertEqual(VerboseLine.lines(.headerIn, "HTTP/1.1 302 Found\r\n"), ["< HTTP/1.1 302 Found"])
        XCTAssertEqual(VerboseLine.lines(.headerIn, "Set-Cookie: id=42\r\n"), ["< Set-Cookie: [REDACTED]"])
        XCTAssertEqual(VerboseLine.lines(.headerIn, "Location: https://u:p@b.test/x?sig=1\r\n"),
                       ["< Location: https://[REDACTED]@b.test/x?sig=[REDACTED]"])
        XCTAssertEqual(VerboseLine.lines(.text, "h2h3 [:path: /small.txt?sig=zz&a=1]\nh2h3 [authorization: Basic YTpi]\n"),
                       ["* h2h3 [:path: /small.txt?sig=[REDACTED]&a=1]", "* h2h3 [authorization: [REDACTED]]"])
        XCTAssertEqual(VerboseLine.lines(.text, "[HTTP/2] [1] [cookie: s=1]"), ["* [HTTP/2] [1] [cookie: [REDACTED]]"])
        XCTAssertEqual(VerboseLine.lines(.text, "h2h3 [:method: GET]"), ["* h2h3 [:method: GET]"])
        XCTAssertEqual(VerboseLine.lines(.text, "Server auth using Basic with user 'bob'\n"),
                       ["* Server auth using Basic with user '[REDACTED]'"])
        XCTAssertEqual(VerboseLine.lines(.text, "Added cookie sid=\"s3cr3t\" for domain 127.0.0.1, path /, expire 0\n"),
                       ["* Added cookie sid=\"[REDACTED]\" for domain 127.0.0.1, path /, expire 0"])
        XCTAssertEqual(VerboseLine.lines(.text, "Replaced cookie sid=\"a b\" for domain h.test, path /, expire 0"),
                       ["* Replaced cookie sid=\"[REDACTED]\" for domain h.test, path /, expire 0"])
        XCTAssertEqual(VerboseLine.lines(.text, "Issue another request to this URL: 'http://u:pw@c.test/'\n"),
                       ["* Issue another request to this URL: 'http://[REDACTED]@c.test/'"])
    }
}
