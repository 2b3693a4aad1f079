/// A TLS cipher suite as far as decrypting its records needs: its AEAD, the hash of its key schedule, and the
/// lengths of its keys and IVs.
struct TLSCipherSuite: Sendable, Equatable {
    /// The hash of the PRF (TLS 1.2) or of HKDF (TLS 1.3).
    enum Hash: Sendable {
        case sha256, sha384

        var length: Int { self == .sha256 ? 32 : 48 }
    }

    let id: UInt16
    let name: String
    let algorithm: AEADCipher.Algorithm
    let hash: Hash

    /// Key length in bytes.
    var keyLength: Int { algorithm.keyLength }
    /// The fixed part of the nonce from the key block (TLS 1.2 GCM: 4 bytes, its other 8 travel in each record);
    /// TLS 1.3 and ChaCha20-Poly1305 take a 12-byte IV.
    func ivLength(tls13: Bool) -> Int { tls13 || algorithm == .chacha20Poly1305 ? 12 : 4 }
    /// Bytes of explicit nonce at the start of each record (TLS 1.2 GCM only).
    func explicitNonceLength(tls13: Bool) -> Int { ivLength(tls13: tls13) == 4 ? 8 : 0 }

    /// The suites decrypted here: the TLS 1.3 ones and the TLS 1.2 AEAD ones (ECDHE, DHE and RSA key exchange).
    static let supported: [UInt16: TLSCipherSuite] = {
        let list: [(UInt16, String, AEADCipher.Algorithm, Hash)] = [
            (0x1301, "TLS_AES_128_GCM_SHA256", .aes128GCM, .sha256),
            (0x1302, "TLS_AES_256_GCM_SHA384", .aes256GCM, .sha384),
            (0x1303, "TLS_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256),
            (0xC02B, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256),
            (0xC02C, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384),
            (0xC02F, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256),
            (0xC030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384),
            (0xCCA8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256),
            (0xCCA9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256),
            (0xCCAA, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", .chacha20Poly1305, .sha256),
            (0x009C, "TLS_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256),
            (0x009D, "TLS_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384),
            (0x009E, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", .aes128GCM, .sha256),
            (0x009F, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", .aes256GCM, .sha384),
        ]
        return Dictionary(uniqueKeysWithValues: list.map { ($0.0, TLSCipherSuite(id: $0.0, name: $0.1, algorithm: $0.2, hash: $0.3)) })
    }()

    /// Names of some suites that are not decrypted here (CBC and others), for the report.
    static let otherNames: [UInt16: String] = [
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0xC023: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xC024: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
        0xC027: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 0xC028: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA", 0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
        0x003C: "TLS_RSA_WITH_AES_128_CBC_SHA256", 0x003D: "TLS_RSA_WITH_AES_256_CBC_SHA256",
        0x1304: "TLS_AES_128_CCM_SHA256", 0x1305: "TLS_AES_128_CCM_8_SHA256",
        0xC0AC: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM", 0xC0AD: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM",
    ]

    /// The IANA name of suite `id`, or its number in hex.
    static func name(of id: UInt16) -> String {
        supported[id]?.name ?? otherNames[id] ?? "0x" + String(id, radix: 16, uppercase: true)
    }
}
