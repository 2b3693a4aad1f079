import WirelensCore
import XCTest

/// `-b` and `-c` as curl 7.88 reads them (tool_getparam: an argument with '=' is cookie data, any other a file name;
/// the engine runs with a file, "" included, or a jar), and the report's view of them.
final class CookieOptionsTests: XCTestCase {
    func testDataAndFilesAreToldApartAsCurlDoes() {
        let options = CookieOptions(arguments: ["a=1; b=2", "jar.txt", "c=3", ""], jar: nil)
        XCTAssertEqual(options.header, "a=1; b=2; c=3")
        XCTAssertEqual(options.files, ["jar.txt", ""])
        XCTAssertTrue(options.engine)
        XCTAssertFalse(CookieOptions(arguments: ["a=1"], jar: nil).engine, "data alone: no engine, as curl's")
        XCTAssertTrue(CookieOptions(arguments: [], jar: "out.jar").engine)
        XCTAssertNil(CookieOptions(arguments: [], jar: nil).header)
    }

    /// The report's options show the -b text as a masked Cookie header, once however often they are redacted.
    func testRedactedOptionsMaskTheCookieText() {
        var options = ProbeOptions()
        options.cookies = CookieOptions(arguments: ["sid=s3cr3t"], jar: nil)
        let redacted = options.redacted.redacted
        XCTAssertNil(redacted.cookies.header)
        XCTAssertEqual(redacted.headers, [HeaderField(name: "Cookie", value: Redactor.mask)])
    }
}
