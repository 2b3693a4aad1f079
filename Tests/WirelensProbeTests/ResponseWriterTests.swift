import Foundation
import WirelensCore
import XCTest
@testable import WirelensProbe

/// The response sinks: memory keeps the first `limit` bytes and marks a longer body cut; a file sink writes the body
/// as it came (read back from disk), and a resumed download's file takes only a 2xx.
final class ResponseWriterTests: XCTestCase {
    private func write(_ writer: inout ResponseWriter, _ chunks: [[UInt8]], status: Int? = 200) throws {
        for chunk in chunks {
            try chunk.withUnsafeBytes { try writer.write($0.baseAddress!, count: $0.count, status: status) }
        }
    }

    func testMemorySinkKeepsUpToItsLimit() throws {
        let body = (0..<100).map { UInt8($0) }
        var whole = ResponseWriter(.memory(limit: 100))
        try write(&whole, [Array(body[0..<30]), Array(body[30..<100])])
        XCTAssertEqual(whole.body, ResponseBody(bytes: body, truncated: false))

        var cut = ResponseWriter(.memory(limit: 40))
        try write(&cut, [Array(body[0..<30]), Array(body[30..<70]), Array(body[70..<100])])
        XCTAssertEqual(cut.body?.bytes, Array(body[0..<40]))
        XCTAssertEqual(cut.body?.truncated, true)

        var none = ResponseWriter(.memory(limit: 10))
        XCTAssertNil(none.body, "no body until a first byte")
        var discard = ResponseWriter(.discard)
        try write(&discard, [body])
        XCTAssertNil(discard.body)
        none.close()
    }

    func testFileSinkAndResume() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-sink-\(UUID().uuidString)").path
        defer { unlink(path) }
        var writer = ResponseWriter(.file(path: path, resume: false))
        try write(&writer, [Array("hello ".utf8), Array("world".utf8)])
        writer.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "hello world")

        var refused = ResponseWriter(.file(path: path, resume: true))
        try write(&refused, [Array("range not satisfiable".utf8)], status: 416)
        refused.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "hello world", "a 416 leaves the file alone")

        var resumed = ResponseWriter(.file(path: path, resume: true))
        try write(&resumed, [Array("!".utf8)], status: 206)
        resumed.close()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "hello world!", "a 206 is appended")

        var bad = ResponseWriter(.file(path: "/nonexistent-dir/x", resume: false))
        XCTAssertThrowsError(try write(&bad, [[1]])) { error in
            XCTAssertEqual((error as? ResponseWriter.Failure)?.message.hasPrefix("cannot write output file '/nonexistent-dir/x'"), true)
        }
    }
}
