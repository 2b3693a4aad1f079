import NIOCore
import WirelensDigest
import XCTest
@testable import WirelensTarget

/// The streaming multipart reader on hand-made bodies, fed whole and byte by byte.
final class MultipartDigestTests: XCTestCase {
    private let boundary = "----wl7MA4YWxkTrZu0gW"

    private func body(_ parts: [(headers: String, content: [UInt8])], close: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            out += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        if close { out += Array("--\(boundary)--\r\n".utf8) }
        return out
    }

    private func read(_ bytes: [UInt8], chunk: Int) -> Result<[MultipartDigest.Part], TargetFailure> {
        let reader = MultipartDigest(boundary: boundary)
        var start = 0
        while start < bytes.count {
            reader.feed(ByteBuffer(bytes: bytes[start..<min(bytes.count, start + chunk)]))
            start += chunk
        }
        return reader.finish()
    }

    func testPartsFedWholeAndByteByByte() throws {
        // Content with CR, LF and a near-boundary that must not end the part.
        let file = Array("line1\r\nline2\r\n--\(boundary.dropLast())x\r".utf8) + (0..<300).map { UInt8($0 % 256) }
        let bytes = body([
            (#"Content-Disposition: form-data; name="a""#, Array("1".utf8)),
            ("Content-Disposition: form-data; name=\"file\"; filename=\"p.bin\"\r\nContent-Type: image/jpeg", file),
            (#"Content-Disposition: form-data; name="empty"; filename="""#, []),
        ])
        for chunk in [bytes.count, 1, 7, 64] {
            let parts = try read(bytes, chunk: chunk).get()
            XCTAssertEqual(parts.map(\.name), ["a", "file", "empty"], "chunk \(chunk)")
            XCTAssertEqual(parts.map(\.filename), [nil, "p.bin", ""])
            XCTAssertEqual(parts.map(\.contentType), [nil, "image/jpeg", nil])
            XCTAssertEqual(parts.map(\.size), [1, Int64(file.count), 0])
            XCTAssertEqual(parts[1].sha256, SHA256Digest.hex(of: file))
        }
    }

    func testMalformedBodiesAreRefused() {
        let unclosed = body([(#"Content-Disposition: form-data; name="a""#, Array("1".utf8))], close: false)
        let noName = body([("Content-Disposition: form-data", Array("1".utf8))])
        let badHeader = Array("--\(boundary)\r\nNo colon here\r\n\r\nx\r\n--\(boundary)--\r\n".utf8)
        let noBoundary = Array("just some bytes".utf8)
        let truncated = Array(body([(#"Content-Disposition: form-data; name="a""#, Array("12345".utf8))]).prefix(60))
        for (name, bytes) in [("unclosed", unclosed), ("no name", noName), ("bad header", badHeader),
                              ("no boundary", noBoundary), ("truncated", truncated)] {
            for chunk in [bytes.count, 1] {
                guard case .failure(let failure) = read(bytes, chunk: chunk) else {
                    XCTFail("\(name) accepted (chunk \(chunk))")
                    continue
                }
                XCTAssertEqual(failure.status, .badRequest)
                XCTAssertTrue(failure.message.contains("multipart"), failure.message)
            }
        }
    }
}
