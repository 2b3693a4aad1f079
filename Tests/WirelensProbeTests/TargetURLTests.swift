import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// `TargetURL`'s refusals, against the curl tool on the same libcurl: a URL curl calls malformed is a malformed URL
/// here too (a usage error), never an engine failure.
final class TargetURLTests: XCTestCase {
    func testURLsCurlCallsMalformedAreMalformedURLs() throws {
        for url in ["http://127.0.0.1:99999/x", "http://127.0.0.1:8o/x", "http://[::1/x"] {
            let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url], timeout: 30)
            XCTAssertEqual(curl.status, 3, "curl's CURLE_URL_MALFORMAT for \(url): \(curl.stderr)")
            XCTAssertThrowsError(try TargetURL(url)) { error in
                guard case .malformedURL(let text, _) = error as? ProbeError else {
                    return XCTFail("\(url): \(error)")
                }
                XCTAssertEqual(text, url)
                XCTAssertTrue((error as? ProbeError)?.description.hasPrefix("malformed URL '") == true, "\(error)")
            }
        }
    }
}
