import Foundation
import WirelensCore
import XCTest
@testable import WirelensReport

final class StreamingJSONEncoderTests: XCTestCase {
    /// Parses JSON text into Foundation objects for a comparison that ignores key order and spacing.
    private func tree(_ bytes: [UInt8]) throws -> NSObject {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as? NSObject)
    }

    func testSameDocumentAsFoundationsEncoder() throws {
        let reports = [
            Fixtures.report(tasks: [Fixtures.redirectTask()]),
            Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true),
            Fixtures.report(tasks: [Fixtures.dnsFailureTask()]),
        ]
        for report in reports {
            let ours = try StreamingJSONEncoder().encode(report)
            let foundation = try JSONEncoder().encode(report)
            XCTAssertEqual(try tree(ours), try tree(Array(foundation)))
            XCTAssertEqual(try JSONDecoder().decode(Report.self, from: Data(ours)), report)
        }
    }

    func testKeysKeepTheirEncodingOrder() throws {
        let text = String(decoding: try StreamingJSONEncoder().encode(Fixtures.report(tasks: [Fixtures.redirectTask()])),
                          as: UTF8.self)
        let order = ["\"fetchStart\"", "\"domainLookupStart\"", "\"connectStart\"", "\"requestStart\"",
                     "\"responseStart\"", "\"responseEnd\""]
        let positions = order.compactMap { text.range(of: $0)?.lowerBound }
        XCTAssertEqual(positions.count, order.count)
        XCTAssertEqual(positions, positions.sorted(), "timeline keys in time order")
        XCTAssertTrue(text.hasPrefix("{\n  \"schema\": \"wirelens.report/2\",\n  \"detail\": \"full\""))
    }

    func testEscapesAndEmptyContainersAndNulls() throws {
        struct Sample: Encodable {
            var text = "quote \" backslash \\ newline \n tab \t bell \u{07} slash / é"
            var empty: [Int] = []
            var none: Int? = nil
            var nested = ["a": [1, 2]]
            var flag = true
            var ratio = 0.125

            enum CodingKeys: String, CodingKey { case text, empty, none, nested, flag, ratio }
            func encode(to encoder: Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(text, forKey: .text)
                try c.encode(empty, forKey: .empty)
                try c.encode(none, forKey: .none)
                try c.encode(nested, forKey: .nested)
                try c.encode(flag, forKey: .flag)
                try c.encode(ratio, forKey: .ratio)
            }
        }
        for pretty in [true, false] {
            let bytes = try StreamingJSONEncoder(prettyPrinted: pretty).encode(Sample())
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            XCTAssertEqual(object["text"] as? String, Sample().text)
            XCTAssertEqual((object["empty"] as? [Any])?.count, 0)
            XCTAssertTrue(object["none"] is NSNull)
            XCTAssertEqual((object["nested"] as? [String: [Int]])?["a"], [1, 2])
            XCTAssertEqual(object["ratio"] as? Double, 0.125)
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.contains("\\u0007"), "control characters are escaped")
            XCTAssertTrue(text.contains("slash / é"), "slashes and non-ASCII are written as they are")
            XCTAssertEqual(text.contains("\n"), pretty)
        }
    }

    func testNonFiniteNumbersAreAnError() {
        XCTAssertThrowsError(try StreamingJSONEncoder().encode([Double.nan]))
        XCTAssertThrowsError(try StreamingJSONEncoder().encode(["x": Double.infinity]))
    }
}

final class JSONRendererCompactTests: XCTestCase {
    func testLargeReportsAreCompactAndDecodeTheSame() throws {
        let report = Fixtures.report(tasks: Fixtures.manyTasks())
        let pretty = try JSONRenderer.renderBytes(report)
        let compact = try JSONRenderer.renderBytes(report, compactAbove: report.tasks.count - 1)
        XCTAssertEqual(compact.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one line plus the final newline")
        XCTAssertGreaterThan(pretty.filter { $0 == UInt8(ascii: "\n") }.count, 10)
        XCTAssertLessThan(compact.count, pretty.count)
        XCTAssertEqual(try JSONRenderer.decode(Data(compact)), try JSONRenderer.decode(Data(pretty)))
    }
}
