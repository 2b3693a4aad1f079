import NIOHTTP1
import WirelensWire
import XCTest
@testable import WirelensTarget

/// The target's pure parsers: Range, Content-Range, routes, query faults, header parameters, --listen.
final class ParsingTests: XCTestCase {
    func testRangeRequest() {
        XCTAssertEqual(ByteRangeRequest.parse(nil, length: 100), .whole)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=0-9", length: 100), .partial(first: 0, last: 9))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=90-", length: 100), .partial(first: 90, last: 99))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=90-500", length: 100), .partial(first: 90, last: 99), "end clamped")
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-10", length: 100), .partial(first: 90, last: 99))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-500", length: 100), .partial(first: 0, last: 99))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=100-", length: 100), .unsatisfiable)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-0", length: 100), .unsatisfiable)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=0-", length: 0), .unsatisfiable)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=9-3", length: 100), .whole, "invalid ranges are ignored")
        XCTAssertEqual(ByteRangeRequest.parse("bytes=0-1,5-6", length: 100), .whole, "several ranges: served whole")
        XCTAssertEqual(ByteRangeRequest.parse("items=0-1", length: 100), .whole)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=+1-2", length: 100), .whole)
    }

    func testContentRange() throws {
        XCTAssertEqual(try ContentRangeHeader.parse("bytes 0-999/2500").get(), ContentRangeHeader(first: 0, last: 999, total: 2500))
        XCTAssertEqual(try ContentRangeHeader.parse("bytes 2000-2499/2500").get().length, 500)
        for bad in [nil, "bytes 5-4/10", "bytes 0-10/10", "bytes */10", "bits 0-1/2", "bytes 0-1", "bytes a-b/c", "bytes -1-2/5"] {
            guard case .failure(let failure) = ContentRangeHeader.parse(bad) else {
                return XCTFail("\(bad ?? "nil") accepted")
            }
            XCTAssertEqual(failure.status, .badRequest)
        }
    }

    func testRoutes() {
        func route(_ method: HTTPMethod, _ path: String) -> Result<TargetRoute, TargetFailure> {
            TargetRoute.resolve(method: method, path: path)
        }
        XCTAssertEqual(try route(.GET, "/bytes/10").get(), .bytes(10))
        XCTAssertEqual(try route(.HEAD, "/bytes/0").get(), .bytes(0))
        XCTAssertEqual(try route(.GET, "/delay/250").get(), .delay(milliseconds: 250))
        XCTAssertEqual(try route(.GET, "/status/503").get(), .status(503))
        XCTAssertEqual(try route(.GET, "/redirect/3").get(), .redirect(3))
        XCTAssertEqual(try route(.PUT, "/upload/a-1").get(), .upload(id: "a-1"))
        XCTAssertEqual(try route(.POST, "/upload/a-1").get(), .upload(id: "a-1"))
        XCTAssertEqual(try route(.GET, "/upload/a-1").get(), .uploadState(id: "a-1"))
        XCTAssertEqual(try route(.PUT, "/upload/a/part/7").get(), .part(id: "a", index: 7))
        XCTAssertEqual(try route(.POST, "/upload/a/complete").get(), .complete(id: "a"))
        XCTAssertEqual(route(.GET, "/nothing/here").failureStatus, .notFound)
        XCTAssertEqual(route(.GET, "/bytes/1/2").failureStatus, .notFound)
        XCTAssertEqual(route(.POST, "/bytes/10").failureStatus, .methodNotAllowed)
        XCTAssertEqual(route(.GET, "/upload/a/part/1").failureStatus, .methodNotAllowed)
        XCTAssertEqual(route(.GET, "/upload/a/complete").failureStatus, .methodNotAllowed)
        XCTAssertEqual(route(.GET, "/bytes/-1").failureStatus, .badRequest)
        XCTAssertEqual(route(.GET, "/status/600").failureStatus, .badRequest)
        XCTAssertEqual(route(.PUT, "/upload/..").failureStatus, .badRequest)
        XCTAssertEqual(route(.PUT, "/upload/a%2Fb").failureStatus, .badRequest)
    }

    func testQuerySplitAndFaults() throws {
        let (path, query) = TargetRoute.split(uri: "/bytes/10?reset_after=5&stall=0.25&status=429&retry_after=2&x")
        XCTAssertEqual(path, "/bytes/10")
        let plan = try FaultPlan().applying(query: query).get()
        XCTAssertEqual(plan, FaultPlan(resetAfter: 5, stallMicros: 250_000, status: 429, retryAfter: 2))
        let base = FaultPlan(resetAfter: 99, stallMicros: 0, status: nil, retryAfter: nil)
        XCTAssertEqual(try base.applying(query: []).get(), base, "the flags apply when the query says nothing")
        for bad in [("reset_after", "x"), ("stall", "-1"), ("status", "99"), ("status", "abc"), ("retry_after", "soon")] {
            guard case .failure(let failure) = FaultPlan().applying(query: [bad]) else { return XCTFail("\(bad) accepted") }
            XCTAssertEqual(failure.status, .badRequest)
            XCTAssertTrue(failure.message.contains(bad.0), failure.message)
        }
    }

    func testHeaderParameters() throws {
        let disposition = try XCTUnwrap(HeaderParameters.parse(#"form-data; name="file"; filename="a \"b\";c.txt""#))
        XCTAssertEqual(disposition.value, "form-data")
        XCTAssertEqual(disposition.parameters, ["name": "file", "filename": #"a "b";c.txt"#])
        let type = try XCTUnwrap(HeaderParameters.parse("Multipart/Form-Data; Boundary=----x1"))
        XCTAssertEqual(type.value, "multipart/form-data")
        XCTAssertEqual(type.parameters["boundary"], "----x1")
        XCTAssertNil(HeaderParameters.parse(#"form-data; name="unterminated"#))
        XCTAssertNil(HeaderParameters.parse("form-data; name"))
        XCTAssertEqual(try MultipartDigest.boundary(contentType: "multipart/form-data; boundary=\"q b\"").get(), "q b")
        XCTAssertNil(try MultipartDigest.boundary(contentType: "application/json").get())
        XCTAssertThrowsError(try MultipartDigest.boundary(contentType: "multipart/form-data").get())
    }

    func testListenAddress() {
        XCTAssertEqual(ListenAddress.parse("127.0.0.1:8080"), ListenAddress(host: "127.0.0.1", port: 8080))
        XCTAssertEqual(ListenAddress.parse("[::1]:0"), ListenAddress(host: "::1", port: 0))
        XCTAssertEqual(ListenAddress.parse(":9000"), ListenAddress(host: "127.0.0.1", port: 9000))
        XCTAssertEqual(ListenAddress.parse("9000"), ListenAddress(host: "127.0.0.1", port: 9000))
        XCTAssertEqual(ListenAddress.parse("localhost:1"), ListenAddress(host: "localhost", port: 1))
        XCTAssertNil(ListenAddress.parse("127.0.0.1:70000"))
        XCTAssertNil(ListenAddress.parse("::1:80"))
        XCTAssertNil(ListenAddress.parse("[::1]80"))
        XCTAssertNil(ListenAddress.parse("host:"))
    }

    func testJSONEscapes() {
        let value = JSONValue.object([.init("s", .string("a\"b\\c\nd\u{1}é")), .init("n", .null), .init("a", .array([.int(-3)]))])
        XCTAssertEqual(value.text, #"{"s":"a\"b\\c\nd\u0001é","n":null,"a":[-3]}"#)
        let decoded = try? JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any]
        XCTAssertEqual(decoded?["s"] as? String, "a\"b\\c\nd\u{1}é")
    }
}

private extension Result where Failure == TargetFailure {
    var failureStatus: HTTPResponseStatus? {
        if case .failure(let failure) = self { return failure.status }
        return nil
    }
}
