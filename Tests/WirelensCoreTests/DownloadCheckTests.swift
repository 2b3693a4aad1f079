import WirelensCore
import XCTest

/// Content-Range parsing and the verdicts of a resumed download.
final class DownloadCheckTests: XCTestCase {
    func testContentRange() {
        XCTAssertEqual(ContentRange.parse("bytes 100-199/1000"), ContentRange(first: 100, last: 199, total: 1000))
        XCTAssertEqual(ContentRange.parse("bytes 0-0/*"), ContentRange(first: 0, last: 0, total: nil))
        XCTAssertEqual(ContentRange.parse("bytes */1000"), ContentRange(first: nil, last: nil, total: 1000))
        for bad in ["bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes */*", "bytes 1-2", "bytes a-b/3"] {
            XCTAssertNil(ContentRange.parse(bad), bad)
        }
    }

    private func headers(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    func testVerdicts() {
        XCTAssertEqual(DownloadCheck.rangeHeader(resumingFrom: 300), HeaderField(name: "Range", value: "bytes=300-"))
        // A 206 from where the file ended, complete or cut short.
        let partial = headers([("Content-Range", "bytes 300-999/1000")])
        XCTAssertEqual(DownloadCheck.verdict(status: 206, headers: partial, requestedFrom: 300, sizeOnDisk: 1000,
                                             transferFailed: false), .complete(size: 1000))
        XCTAssertEqual(DownloadCheck.verdict(status: 206, headers: partial, requestedFrom: 300, sizeOnDisk: 700,
                                             transferFailed: true), .short(have: 700, expected: 1000))
        // A 206 from elsewhere would corrupt the file.
        guard case .wrong = DownloadCheck.verdict(status: 206, headers: partial, requestedFrom: 200, sizeOnDisk: 900,
                                                  transferFailed: false) else { return XCTFail("range mismatch") }
        // A 200 replaced the file: checked against Content-Length.
        let whole = headers([("content-length", "1000")])
        XCTAssertEqual(DownloadCheck.verdict(status: 200, headers: whole, requestedFrom: 300, sizeOnDisk: 1000,
                                             transferFailed: false), .complete(size: 1000))
        XCTAssertEqual(DownloadCheck.verdict(status: 200, headers: whole, requestedFrom: 0, sizeOnDisk: 10,
                                             transferFailed: true), .short(have: 10, expected: 1000))
        // A 416 to a file that already holds everything, and to one that holds more.
        let unsatisfiable = headers([("Content-Range", "bytes */1000")])
        XCTAssertEqual(DownloadCheck.verdict(status: 416, headers: unsatisfiable, requestedFrom: 1000, sizeOnDisk: 1000,
                                             transferFailed: false), .complete(size: 1000))
        guard case .wrong(let reason) = DownloadCheck.verdict(status: 416, headers: unsatisfiable, requestedFrom: 2000,
                                                              sizeOnDisk: 2000, transferFailed: false) else {
            return XCTFail("a longer file is wrong")
        }
        XCTAssertTrue(reason.contains("2000"), reason)
        XCTAssertEqual(DownloadCheck.verdict(status: nil, headers: [], requestedFrom: 0, sizeOnDisk: 0, transferFailed: true),
                       .short(have: 0, expected: nil))
        guard case .wrong = DownloadCheck.verdict(status: 404, headers: [], requestedFrom: 0, sizeOnDisk: 0,
                                                  transferFailed: false) else { return XCTFail("404") }
    }
}
