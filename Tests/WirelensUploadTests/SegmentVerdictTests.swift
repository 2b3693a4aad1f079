import WirelensCore
import WirelensUpload
import XCTest

/// Judging a segment attempt: accepted, retried, or final (no retry storm against a server without the API).
final class SegmentVerdictTests: XCTestCase {
    func testJudgeClassifiesAnswers() {
        let plan = UploadPlan(filePath: "/dev/null", fileSize: 10, baseURL: "http://127.0.0.1:1/u", sizing: .fixed(10),
                              parallel: 1, maxRetries: 1)
        let segment = Segment(index: 0, offset: 0, length: 10)
        func record(_ status: Int?, _ error: TransferError? = nil) -> TaskRecord {
            TaskRecord(index: 0, url: "u", method: "PUT", startedAt: 0, endedAt: 1, redirectCount: 0, retries: 0,
                       statusCode: status, error: error, transactions: [])
        }
        let json = Array(#"{"offset":0,"length":10}"#.utf8)
        XCTAssertEqual(SegmentVerdict.judge(record(200), body: json, segment: segment, plan: plan), .accepted)
        XCTAssertEqual(SegmentVerdict.judge(record(503), body: nil, segment: segment, plan: plan), .retryable("HTTP 503"))
        XCTAssertEqual(SegmentVerdict.judge(record(429), body: nil, segment: segment, plan: plan), .retryable("HTTP 429"))
        guard case .fatal = SegmentVerdict.judge(record(200), body: Array("ok".utf8), segment: segment, plan: plan) else {
            return XCTFail("a 200 without the protocol's JSON is not a segment API")
        }
        guard case .fatal = SegmentVerdict.judge(record(400), body: nil, segment: segment, plan: plan) else { return XCTFail("400 is final") }
        guard case .fatal(let reason) = SegmentVerdict.judge(record(501), body: nil, segment: segment, plan: plan), reason.contains("no segment API") else {
            return XCTFail("501 Not Implemented is final: no segment API")
        }
        let reset = TransferError(errorClass: .network, message: "reset")
        guard case .retryable = SegmentVerdict.judge(record(nil, reset), body: nil, segment: segment, plan: plan) else {
            return XCTFail("a reset is worth a retry")
        }
    }
}
