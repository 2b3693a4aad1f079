internal import COpenSSL

/// The record cipher of one direction of a TLS connection through libcrypto: AES-128-GCM, AES-256-GCM or
/// ChaCha20-Poly1305, its key set once, a nonce per record. libcrypto's context never leaves this type.
final class AEADCipher {
    /// The AEAD algorithms TLS 1.2 and 1.3 records are decrypted with here.
    enum Algorithm: Sendable {
        case aes128GCM, aes256GCM, chacha20Poly1305

        /// Key length in bytes.
        var keyLength: Int { self == .aes128GCM ? 16 : 32 }
    }

    /// The authentication tag's length, at the end of every record.
    static let tagLength = 16
    static let nonceLength = 12

    private let context: OpaquePointer

    /// A cipher for `algorithm` under `key`; nil when libcrypto refuses it (a key of the wrong length).
    init?(_ algorithm: Algorithm, key: [UInt8]) {
        guard key.count == algorithm.keyLength, let context = EVP_CIPHER_CTX_new() else { return nil }
        let cipher = switch algorithm {
        case .aes128GCM: EVP_aes_128_gcm()
        case .aes256GCM: EVP_aes_256_gcm()
        case .chacha20Poly1305: EVP_chacha20_poly1305()
        }
        let ready = EVP_DecryptInit_ex(context, cipher, nil, nil, nil) == 1
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(Self.nonceLength), nil) == 1
            && key.withUnsafeBufferPointer { EVP_DecryptInit_ex(context, nil, nil, $0.baseAddress, nil) } == 1
        guard ready else {
            EVP_CIPHER_CTX_free(context)
            return nil
        }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Decrypts `sealed` (ciphertext followed by its tag) under `nonce` (12 bytes) with `aad` into `output` (at least
    /// `sealed.count - tagLength` bytes); the plaintext's length, or nil when the tag does not authenticate it.
    func open(_ sealed: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer,
              into output: UnsafeMutableRawBufferPointer) -> Int? {
        let length = sealed.count - Self.tagLength
        guard length >= 0, begin(nonce: nonce, aad: aad),
              let count = update(UnsafeRawBufferPointer(rebasing: sealed[..<length]), into: output),
              finish(tag: UnsafeRawBufferPointer(rebasing: sealed[length...])) else { return nil }
        return count
    }

    /// Starts a record: its nonce (12 bytes) and additional data. Its ciphertext follows in `update`s, its tag in
    /// `finish`, so that a record is decrypted piece by piece as its packets arrive.
    func begin(nonce: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) -> Bool {
        guard nonce.count == Self.nonceLength,
              EVP_DecryptInit_ex(context, nil, nil, nil, nonce.baseAddress?.assumingMemoryBound(to: UInt8.self)) == 1
        else { return false }
        var written: Int32 = 0
        guard aad.count > 0 else { return true }
        return EVP_DecryptUpdate(context, nil, &written, aad.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                 Int32(aad.count)) == 1
    }

    /// Decrypts a piece of the record's ciphertext into `output` (at least as long); the bytes written.
    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard input.count > 0 else { return 0 }
        guard output.count >= input.count, let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return nil }
        var written: Int32 = 0
        guard EVP_DecryptUpdate(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, base,
                                Int32(input.count)) == 1 else { return nil }
        return Int(written)
    }

    /// Ends the record with its tag: true when the tag authenticates it (AEAD modes write nothing more here).
    func finish(tag: UnsafeRawBufferPointer) -> Bool {
        guard tag.count == Self.tagLength else { return false }
        var copy = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &copy) { buffer in
            buffer.copyMemory(from: tag)
            var written: Int32 = 0
            var sink: UInt8 = 0
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagLength), buffer.baseAddress) == 1
                && EVP_DecryptFinal_ex(context, &sink, &written) == 1
        }
    }
}
