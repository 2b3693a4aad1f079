internal import COpenSSL

/// HMAC-SHA256 through OpenSSL's libcrypto: a keyed hash that identifies a value without storing it.
package enum HMACSHA256 {
    /// The HMAC-SHA256 of `message` under `key`, as 64 lowercase hex digits; nil when libcrypto fails (it cannot
    /// allocate).
    package static func hex(key: [UInt8], message: [UInt8]) -> String? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                     messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count, &digest, &length)
            }
        }
        guard done != nil else { return nil }
        return SHA256Digest.hex(digest.prefix(Int(length)))
    }

    /// The HMAC-SHA256 of the UTF-8 bytes of `message` under `key`, as hex; nil when libcrypto fails.
    package static func hex(key: [UInt8], message: String) -> String? {
        hex(key: key, message: Array(message.utf8))
    }
}
