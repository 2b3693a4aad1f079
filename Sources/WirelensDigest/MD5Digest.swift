internal import COpenSSL

/// MD5 through OpenSSL's libcrypto, for what S3 checks with it (a part's Content-MD5, a multipart object's ETag),
/// never for integrity of our own: that is `SHA256Digest`.
package enum MD5Digest {
    /// The raw 16-byte MD5 of `length` bytes of a file from `offset` (to the end when nil).
    package static func bytes(ofFile path: String, offset: Int64 = 0,
                             length: Int64? = nil) throws(DigestError) -> [UInt8] {
        let digest = EVPDigest(EVP_md5())
        try digest.update(file: path, offset: offset, length: length)
        return digest.finalize()
    }

    /// The raw 16-byte MD5 of `bytes`.
    package static func bytes<Bytes: Sequence>(of bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let digest = EVPDigest(EVP_md5())
        digest.update(bytes)
        return digest.finalize()
    }

    /// `bytes` as lowercase hex digits (an ETag's form).
    package static func hex(_ bytes: [UInt8]) -> String { EVPDigest.hex(bytes) }
}
