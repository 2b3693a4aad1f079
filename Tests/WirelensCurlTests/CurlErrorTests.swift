import CCurl
import XCTest
@testable import WirelensCurl

/// Return codes libcurl really gives for options and calls it refuses, read through the typed wrappers without any
/// socket: each failure is a `CurlError` with libcurl's code (the values of curl.h's enums), its message and the
/// option or call it was about.
final class CurlErrorTests: XCTestCase {
    func testAnOptionValueLibcurlRefusesNamesTheOption() throws {
        let easy = try CurlEasy()
        // setopt.c: a CURLOPT_HTTP_VERSION below CURL_HTTP_VERSION_NONE is a bad argument, one past the last an
        // unsupported protocol.
        XCTAssertThrowsError(try easy.set(CURLOPT_HTTP_VERSION, -1, "CURLOPT_HTTP_VERSION")) { error in
            let failure = error as? CurlError
            XCTAssertEqual(failure?.interface, .easy)
            XCTAssertEqual(failure?.code, Int32(CURLE_BAD_FUNCTION_ARGUMENT.rawValue))
            XCTAssertEqual(failure?.operation, "curl_easy_setopt(CURLOPT_HTTP_VERSION)")
            XCTAssertEqual(failure?.message, String(cString: curl_easy_strerror(CURLE_BAD_FUNCTION_ARGUMENT)))
        }
        XCTAssertThrowsError(try easy.set(CURLOPT_HTTP_VERSION, 999, "CURLOPT_HTTP_VERSION")) { error in
            XCTAssertEqual((error as? CurlError)?.code, Int32(CURLE_UNSUPPORTED_PROTOCOL.rawValue))
        }
        XCTAssertNoThrow(try easy.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1), "CURLOPT_HTTP_VERSION"))
    }

    func testAnUnknownOptionIsRefused() throws {
        let easy = try CurlEasy()
        XCTAssertThrowsError(try easy.set(CURLoption(rawValue: 999), 1, "option 999")) { error in
            let failure = error as? CurlError
            XCTAssertEqual(failure?.code, Int32(CURLE_UNKNOWN_OPTION.rawValue))
            XCTAssertEqual(failure?.description, "curl_easy_setopt(option 999): \(failure?.message ?? "")")
        }
        let multi = try CurlMulti(.init(maxHostConnections: nil, maxTotalConnections: nil, multiplex: false,
                                        connectionCache: 8))
        XCTAssertThrowsError(try multi.set(CURLMoption(rawValue: 999), 1, "option 999")) { error in
            let failure = error as? CurlError
            XCTAssertEqual(failure?.interface, .multi)
            XCTAssertEqual(failure?.code, Int32(CURLM_UNKNOWN_OPTION.rawValue))
            XCTAssertEqual(failure?.message, String(cString: curl_multi_strerror(CURLM_UNKNOWN_OPTION)))
        }
    }

    /// curl_multi_add_handle's result is checked: a handle already added is refused (CURLM_ADDED_ALREADY).
    func testAddingAHandleTwiceIsRefused() throws {
        let multi = try CurlMulti(.init(maxHostConnections: 1, maxTotalConnections: 2, multiplex: true, connectionCache: 8))
        let easy = try CurlEasy()
        try multi.add(easy)
        XCTAssertThrowsError(try multi.add(easy)) { error in
            let failure = error as? CurlError
            XCTAssertEqual(failure?.code, Int32(CURLM_ADDED_ALREADY.rawValue))
            XCTAssertEqual(failure?.operation, "curl_multi_add_handle")
        }
        try multi.remove(easy)
        XCTAssertNoThrow(try multi.remove(easy), "a handle not added is not removed again")
    }

    /// A transfer libcurl fails by itself (no URL set: no socket is made) comes back from `finished` with its code and
    /// the error buffer's text.
    func testAFailedTransferCarriesItsCodeAndErrorBuffer() throws {
        let multi = try CurlMulti(.init(maxHostConnections: nil, maxTotalConnections: nil, multiplex: false,
                                        connectionCache: 8))
        let easy = try CurlEasy()
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer), "CURLOPT_ERRORBUFFER")
        try multi.add(easy)
        var done: [(easy: CurlEasy, error: CurlError?)] = []
        for _ in 0..<100 where done.isEmpty {
            try multi.perform()
            multi.finished(into: &done)
        }
        XCTAssertEqual(done.count, 1)
        XCTAssertTrue(done.first?.easy === easy)
        let failure = try XCTUnwrap(done.first?.error)
        XCTAssertEqual(failure.code, Int32(CURLE_URL_MALFORMAT.rawValue))
        XCTAssertEqual(failure.message, String(cString: curl_easy_strerror(CURLE_URL_MALFORMAT)))
        XCTAssertEqual(failure.detail, "No URL set")
        try multi.remove(easy)
    }

    /// Facts of a handle that never ran are read with every getinfo checked.
    func testFactsOfAnIdleHandle() throws {
        let easy = try CurlEasy()
        let info = try EasyInfo(easy)
        XCTAssertEqual(info.numConnects, 0)
        XCTAssertNil(info.redirectURL)
        XCTAssertEqual(try easy.uploadedBytes(), 0)
    }
}
