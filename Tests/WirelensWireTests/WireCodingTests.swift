import WirelensTestSupport
import WirelensWire
import XCTest

/// The wire types on their own: what they read from other servers' answers, and the order-keeping encoder's bytes
/// (Python's json module as the reader). The target's answers byte for byte are WirelensTargetTests' WireAnswerTests.
final class WireCodingTests: XCTestCase {
    func testAnswersOfOtherServersNeedOnlyWhatTheUploaderChecks() {
        XCTAssertEqual(PartAnswer.decode(Array(#"{"offset":5,"length":7,"id":42}"#.utf8)),
                       PartAnswer(id: nil, index: nil, offset: 5, length: 7, sha256: nil))
        XCTAssertNil(PartAnswer.decode(Array(#"{"offset":5}"#.utf8)), "no length: not the protocol")
        XCTAssertEqual(CompleteAnswer.decode(Array(#"{"size":3,"sha256":"AB"}"#.utf8)),
                       CompleteAnswer(id: nil, size: 3, sha256: "AB", parts: nil))
        XCTAssertNil(CompleteAnswer.decode(Array(#"{"size":"3","sha256":"ab"}"#.utf8)))
        XCTAssertNil(CompleteAnswer.decode(Array("not json".utf8)))
    }

    func testEncodingKeepsDeclarationOrderAndEscapes() throws {
        struct Sample: Encodable {
            var z = "a\"/\n\u{1}é"
            var a: Int64 = -3
            var absent: String? = nil
            var nested = [[1, 2], []]
        }
        let text = String(decoding: JSONValue.bytes(of: Sample()), as: UTF8.self)
        XCTAssertEqual(text, #"{"z":"a\"/\n\u0001é","a":-3,"nested":[[1,2],[]]}"#)
        // Python's json module reads the same values back.
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c",
            "import json,sys; print(json.loads(sys.argv[1]) == {'z': 'a\"/\\n\\u0001é', 'a': -3, 'nested': [[1, 2], []]})",
            text])
        XCTAssertEqual(outcome.stdout, "True\n", outcome.stderr)
    }
}
