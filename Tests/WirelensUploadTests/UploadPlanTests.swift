import WirelensCore
import WirelensUpload
import XCTest

/// Where a plan for the segment protocol sends parts and the complete call.
final class UploadPlanTests: XCTestCase {
    private func plan(_ base: String) -> UploadPlan {
        UploadPlan(filePath: "/f", fileSize: 10, baseURL: base, sizing: .fixed(5), parallel: 1, maxRetries: 0)
    }

    func testPartAndCompleteURLsKeepTheQueryAndDropADoubledSlash() {
        XCTAssertEqual(plan("http://h/upload/a").partTemplate, "http://h/upload/a/part/{index}")
        XCTAssertEqual(plan("http://h/upload/a/").completeURL, "http://h/upload/a/complete")
        let signed = plan("https://h/up/a?token=x&exp=1")
        XCTAssertEqual(signed.partTemplate, "https://h/up/a/part/{index}?token=x&exp=1")
        XCTAssertEqual(signed.completeURL, "https://h/up/a/complete?token=x&exp=1")
        XCTAssertTrue(signed.sendsContentRange)
    }

    func testATemplateWithTheOffsetSendsNoContentRange() {
        let byOffset = UploadPlan(filePath: "/f", fileSize: 10, url: "u", partTemplate: "http://h/{offset}", completeURL: nil,
                                  sizing: .fixed(5), parallel: 1, maxRetries: 0)
        XCTAssertFalse(byOffset.sendsContentRange)
        XCTAssertFalse(byOffset.segmentProtocol)
        let byIndex = UploadPlan(filePath: "/f", fileSize: 10, url: "u", partTemplate: "http://h/{index}", completeURL: nil,
                                 sizing: .fixed(5), parallel: 1, maxRetries: 0)
        XCTAssertTrue(byIndex.sendsContentRange)
    }
}
