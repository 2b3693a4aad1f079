import XCTest
import WirelensCore
@testable import WirelensCurl

/// libcurl's RECV_ERROR covers both a broken connection and a server's broken bytes; the texts libcurl 7.88
/// writes for each (seen against slowpeer's /broken/ endpoints and a reset connection) pick the class.
final class CurlErrorMapTests: XCTestCase {
    func testRecvErrorIsProtocolWhenTheServerBrokeHTTP() {
        for text in ["Illegal or missing hexadecimal sequence in chunked-encoding",
                     "Malformed encoding found in chunked-encoding",
                     "Too large response headers: 307214 > 307200",
                     "Too many response headers, 500 is max",
                     "chunk hex-length char not a hex digit: 0x5a"] {
            XCTAssertEqual(CurlErrorMap.classify(code: 56, connected: true, message: text), .protocol, text)
        }
    }

    func testRecvErrorIsNetworkWhenTheConnectionBroke() {
        for text in ["Recv failure: Connection reset by peer", "Failure when receiving data from the peer", ""] {
            XCTAssertEqual(CurlErrorMap.classify(code: 56, connected: true, message: text), .network, text)
        }
        XCTAssertEqual(CurlErrorMap.classify(code: 18, connected: true,
                                             message: "transfer closed with 900 bytes remaining to read"), .network)
        XCTAssertEqual(CurlErrorMap.classify(code: 52, connected: true, message: "Empty reply from server"), .network)
    }

    func testMalformedRepliesAreProtocol() {
        XCTAssertEqual(CurlErrorMap.classify(code: 1, connected: true, message: "Unsupported response code in HTTP response"),
                       .protocol)
        XCTAssertEqual(CurlErrorMap.classify(code: 8, connected: true, message: "Invalid Content-Length: x"), .protocol)
        XCTAssertEqual(CurlErrorMap.classify(code: 100, connected: true, message: "Too large response headers"), .protocol)
    }
}
