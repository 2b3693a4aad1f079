internal import COpenSSL

/// A streaming SHA-256 through OpenSSL's libcrypto (already linked by libcurl): feed bytes, then take the hex digest.
///
/// Not thread-safe: one owner feeds it. After `finalize()` the digest is fixed and further updates are ignored.
package final class SHA256Digest {
    private let digest = EVPDigest(EVP_sha256())

    /// A digest of no bytes yet.
    package init() {}

    /// Adds bytes to the digest.
    package func update(_ bytes: UnsafeRawBufferPointer) { digest.update(bytes) }

    /// Adds bytes to the digest.
    package func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 { digest.update(bytes) }

    /// The digest as 64 lowercase hex digits; later calls return the same text.
    package func finalize() -> String { EVPDigest.hex(digest.finalize()) }

    /// The SHA-256 of `bytes` as hex.
    package static func hex<Bytes: Sequence>(of bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digest = SHA256Digest()
        digest.update(bytes)
        return digest.finalize()
    }

    /// The SHA-256 of `length` bytes of a file from `offset` (to the end when nil), read in chunks with pread.
    package static func hex(ofFile path: String, offset: Int64 = 0, length: Int64? = nil) throws(DigestError) -> String {
        let digest = SHA256Digest()
        try digest.update(file: path, offset: offset, length: length)
        return digest.finalize()
    }

    /// Adds `length` bytes of a file from `offset` (to the end when nil), read in chunks with pread.
    ///
    /// Throws when the file cannot be read or is shorter than `offset + length`.
    package func update(file path: String, offset: Int64 = 0, length: Int64? = nil) throws(DigestError) {
        try digest.update(file: path, offset: offset, length: length)
    }

    /// The bytes as lowercase hex digits.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 { EVPDigest.hex(bytes) }
}

/// A file that could not be read for its digest.
package struct DigestError: Error, CustomStringConvertible {
    package let path: String
    package let reason: String
    package var description: String { "cannot read '\(path)': \(reason)" }
}
