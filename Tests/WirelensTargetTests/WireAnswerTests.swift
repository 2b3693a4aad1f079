import Foundation
import WirelensTestSupport
import WirelensWire
import XCTest

/// The segment protocol's answers on the wire: the bytes curl receives from the target (member order, escaping,
/// the trailing newline) and what the uploader's wire types read back from them. The digests come from
/// sha256sum, the expected texts from the protocol as documented in the README.
final class WireAnswerTests: XCTestCase {
    func testPartCompleteMissingAndStatusAnswersByteForByte() async throws {
        try await TargetHarness.with { target in
            let first = target.path("first")
            let second = target.path("second")
            try Data("0123456789".utf8).write(to: URL(fileURLWithPath: first))
            try Data("abcde".utf8).write(to: URL(fileURLWithPath: second))
            let firstSHA = try TargetHarness.sha256sum(first)

            let part = try target.fetch(["-T", first, "-H", "Content-Range: bytes 0-9/15", target.url("/upload/w/part/0")])
            XCTAssertEqual(part.status, 200)
            XCTAssertEqual(String(decoding: part.body, as: UTF8.self),
                           #"{"id":"w","index":0,"offset":0,"length":10,"sha256":"\#(firstSHA)"}"# + "\n")
            XCTAssertEqual(PartAnswer.decode([UInt8](part.body)),
                           PartAnswer(id: "w", index: 0, offset: 0, length: 10, sha256: firstSHA))

            let missing = try target.fetch(["-X", "POST", target.url("/upload/w/complete")])
            XCTAssertEqual(missing.status, 409)
            XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), #"{"error":"missing ranges","missing":[[10,14]]}"# + "\n")
            XCTAssertEqual(MissingRangesAnswer.decode([UInt8](missing.body))?.missing, [[10, 14]])

            XCTAssertEqual(try target.fetch(["-T", second, "-H", "Content-Range: bytes 10-14/15",
                                             target.url("/upload/w/part/1")]).status, 200)
            let whole = target.path("whole")
            try Data("0123456789abcde".utf8).write(to: URL(fileURLWithPath: whole))
            let wholeSHA = try TargetHarness.sha256sum(whole)
            let done = try target.fetch(["-X", "POST", target.url("/upload/w/complete")])
            XCTAssertEqual(done.status, 200)
            XCTAssertEqual(String(decoding: done.body, as: UTF8.self),
                           #"{"id":"w","size":15,"sha256":"\#(wholeSHA)","parts":2}"# + "\n")
            XCTAssertEqual(CompleteAnswer.decode([UInt8](done.body)), CompleteAnswer(id: "w", size: 15, sha256: wholeSHA, parts: 2))

            let status = try target.fetch([target.url("/upload/w")])
            XCTAssertEqual(status.status, 200)
            XCTAssertEqual(String(decoding: status.body, as: UTF8.self),
                           #"{"id":"w","total":15,"ranges":[[0,14]],"parts":[{"index":0,"offset":0,"length":10},"#
                               + #"{"index":1,"offset":10,"length":5}]}"# + "\n")
            XCTAssertEqual(UploadStatus.decode([UInt8](status.body)),
                           UploadStatus(id: "w", total: 15, ranges: [0...14],
                                        parts: [.init(index: 0, offset: 0, length: 10), .init(index: 1, offset: 10, length: 5)]))
        }
    }

    func testCompleteCallFaults() async throws {
        try await TargetHarness.with { target in
            let file = target.path("file")
            try Data("0123456789".utf8).write(to: URL(fileURLWithPath: file))
            let sha = try TargetHarness.sha256sum(file)
            XCTAssertEqual(try target.fetch(["-T", file, "-H", "Content-Range: bytes 0-9/10", target.url("/upload/f/part/0")]).status, 200)
            // The first two complete calls fail in passing, the third answers; the count is per upload.
            let calls = try (1...3).map { _ in try target.fetch(["-X", "POST", target.url("/upload/f/complete?fail_complete=2")]) }
            XCTAssertEqual(calls.map(\.status), [503, 503, 200])
            XCTAssertEqual(CompleteAnswer.decode([UInt8](calls[2].body))?.sha256, sha)
            // wrong_digest: the size is right, the SHA-256 is not the file's.
            let wrong = try target.fetch(["-X", "POST", target.url("/upload/f/complete?wrong_digest=1")])
            XCTAssertEqual(wrong.status, 200)
            let answer = try XCTUnwrap(CompleteAnswer.decode([UInt8](wrong.body)))
            XCTAssertEqual(answer.size, 10)
            XCTAssertNotEqual(answer.sha256, sha)
            XCTAssertEqual(answer.sha256.count, 64)
            XCTAssertEqual(try target.fetch(["-X", "POST", target.url("/upload/f/complete?wrong_digest=2")]).status, 400)
            XCTAssertEqual(try target.fetch(["-X", "POST", target.url("/upload/none/complete?fail_complete=5")]).status, 404,
                           "an unknown upload is not counted")
        }
    }
}
