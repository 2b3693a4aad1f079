internal import COpenSSL

/// The key derivations of TLS record decryption (pure functions over bytes, HMAC through libcrypto): TLS 1.2's PRF
/// key expansion from the master secret, TLS 1.3's HKDF-Expand-Label for keys, IVs and key updates.
enum TLSKeySchedule {
    /// One direction's record key and IV.
    struct Keys: Equatable {
        var key: [UInt8]
        var iv: [UInt8]
    }

    /// HMAC of `message` under `key` with `hash`.
    static func hmac(_ hash: TLSCipherSuite.Hash, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md = hash == .sha256 ? EVP_sha256() : EVP_sha384()
        let done = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                HMAC(md, k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                     &digest, &length)
            }
        }
        return done == nil ? [] : Array(digest.prefix(Int(length)))
    }

    /// HKDF-Expand (RFC 5869): `length` bytes from `secret` and `info`.
    static func hkdfExpand(_ hash: TLSCipherSuite.Hash, secret: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length, counter < 255 {
            block = hmac(hash, key: secret, message: block + info + [counter])
            if block.isEmpty { return [] }
            output += block
            counter += 1
        }
        return Array(output.prefix(length))
    }

    /// HKDF-Expand-Label (RFC 8446 7.1) with an empty context.
    static func expandLabel(_ hash: TLSCipherSuite.Hash, secret: [UInt8], label: String, length: Int) -> [UInt8] {
        let full = Array("tls13 ".utf8) + Array(label.utf8)
        let info = [UInt8(length >> 8), UInt8(length & 0xff), UInt8(full.count)] + full + [0]
        return hkdfExpand(hash, secret: secret, info: info, length: length)
    }

    /// A TLS 1.3 traffic secret's record key and IV.
    static func tls13Keys(_ suite: TLSCipherSuite, secret: [UInt8]) -> Keys {
        Keys(key: expandLabel(suite.hash, secret: secret, label: "key", length: suite.keyLength),
             iv: expandLabel(suite.hash, secret: secret, label: "iv", length: 12))
    }

    /// The traffic secret after a KeyUpdate (RFC 8446 7.2).
    static func nextSecret(_ suite: TLSCipherSuite, after secret: [UInt8]) -> [UInt8] {
        expandLabel(suite.hash, secret: secret, label: "traffic upd", length: suite.hash.length)
    }

    /// The TLS 1.2 PRF (RFC 5246 5): P_hash(secret, label + seed), `length` bytes.
    static func prf(_ hash: TLSCipherSuite.Hash, secret: [UInt8], label: String, seed: [UInt8], length: Int) -> [UInt8] {
        let labelSeed = Array(label.utf8) + seed
        var output: [UInt8] = []
        var a = labelSeed
        while output.count < length {
            a = hmac(hash, key: secret, message: a)
            let block = hmac(hash, key: secret, message: a + labelSeed)
            if a.isEmpty || block.isEmpty { return [] }
            output += block
        }
        return Array(output.prefix(length))
    }

    /// The TLS 1.2 client and server write keys and IVs from the master secret (AEAD suites: no MAC keys).
    static func tls12Keys(_ suite: TLSCipherSuite, masterSecret: [UInt8], clientRandom: [UInt8],
                          serverRandom: [UInt8]) -> (client: Keys, server: Keys) {
        let keyLength = suite.keyLength, ivLength = suite.ivLength(tls13: false)
        let block = prf(suite.hash, secret: masterSecret, label: "key expansion", seed: serverRandom + clientRandom,
                        length: 2 * (keyLength + ivLength))
        guard block.count == 2 * (keyLength + ivLength) else { return (Keys(key: [], iv: []), Keys(key: [], iv: [])) }
        let clientKey = Array(block[0..<keyLength])
        let serverKey = Array(block[keyLength..<(2 * keyLength)])
        let clientIV = Array(block[(2 * keyLength)..<(2 * keyLength + ivLength)])
        let serverIV = Array(block[(2 * keyLength + ivLength)...])
        return (Keys(key: clientKey, iv: clientIV), Keys(key: serverKey, iv: serverIV))
    }
}
