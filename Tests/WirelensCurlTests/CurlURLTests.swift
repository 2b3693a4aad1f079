import CCurl
import WirelensTestSupport
import XCTest
@testable import WirelensCurl

/// libcurl's URL parser as `CurlURL` reads it, against the curl tool on the same libcurl.
final class CurlURLTests: XCTestCase {
    /// A port past 65535: curl exits 3 (CURLE_URL_MALFORMAT) before it connects anywhere, and `CurlURL` gives
    /// curl_url_set's own code for it, CURLUE_BAD_PORT_NUMBER, as an unparsable URL with libcurl's text.
    func testAPortPast65535IsUnparsableAsCurlSays() throws {
        let url = "http://127.0.0.1:99999/x"
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", url], timeout: 30)
        XCTAssertEqual(curl.status, Int32(CURLE_URL_MALFORMAT.rawValue), curl.stderr)
        XCTAssertThrowsError(try CurlURL(url)) { error in
            let failure = error as? CurlURL.Failure
            XCTAssertEqual(failure?.kind, .unparsable(code: Int32(CURLUE_BAD_PORT_NUMBER.rawValue)))
            XCTAssertEqual(failure?.reason, String(cString: curl_url_strerror(CURLUE_BAD_PORT_NUMBER)))
        }
        XCTAssertThrowsError(try CurlURL.rewrite(url, user: "u", password: nil)) { error in
            XCTAssertEqual((error as? CurlURL.Failure)?.kind, .unparsable(code: Int32(CURLUE_BAD_PORT_NUMBER.rawValue)))
        }
    }

    /// A URL curl accepts parses into the host and port curl tries (its verbose "Trying HOST:PORT" line; the port is
    /// closed, so nothing answers), with the user info as written.
    func testAURLCurlAcceptsParsesIntoTheAddressCurlTries() throws {
        for (url, user) in [("http://user:secret@127.0.0.1:9/x", "user"), ("http://[::1]:9/x", nil)] {
            let curl = try ProcessRunner.run("/usr/bin/curl", ["-sv", "-o", "/dev/null", url], timeout: 30)
            XCTAssertEqual(curl.status, Int32(CURLE_COULDNT_CONNECT.rawValue), curl.stderr)
            let parsed = try CurlURL(url)
            XCTAssertTrue(curl.stderr.contains("Trying \(parsed.host):\(parsed.port.map(String.init) ?? "")..."),
                          "\(parsed.host) \(String(describing: parsed.port)) not in: \(curl.stderr)")
            XCTAssertEqual(parsed.scheme, "http")
            XCTAssertEqual(parsed.user, user)
            XCTAssertEqual(parsed.password, user == nil ? nil : "secret")
        }
    }
}
