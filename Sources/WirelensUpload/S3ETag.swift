import Foundation
import WirelensDigest

/// What S3 computes as an object's ETag, from the MD5s of what was sent, to check the server kept those bytes:
/// a PutObject's is the body's MD5 in hex; a multipart upload's is the MD5 of the parts' raw MD5s, then `-N`
/// for N parts.
package struct S3ETag: Sendable, Equatable, CustomStringConvertible {
    /// The ETag without its quotes (`9b2c…-8`).
    package var value: String

    package var description: String { value }

    /// The ETag S3 serves, its quotes (and a weak `W/` prefix, which S3 never sends) dropped.
    package init(served: String) {
        var text = Substring(served.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        value = String(text).lowercased()
    }

    /// A PutObject's ETag: the body's MD5 (`md5`, 16 raw bytes) in hex.
    package init(singleMD5 md5: [UInt8]) {
        value = MD5Digest.hex(md5)
    }

    /// A multipart upload's ETag: the MD5 of the parts' raw MD5s in part order, in hex, then `-N`.
    package init(partMD5s: [[UInt8]]) {
        value = MD5Digest.hex(MD5Digest.bytes(of: partMD5s.flatMap { $0 })) + "-\(partMD5s.count)"
    }

    /// A part's `Content-MD5` header: its raw MD5 in base64.
    package static func contentMD5(_ md5: [UInt8]) -> String { Data(md5).base64EncodedString() }
}
