/// What a TLS connection shows in clear text: the ClientHello's server name and offered protocols, and the
/// version and protocol the ServerHello chose where it carries them (TLS 1.3 hides the chosen ALPN); with a key
/// log, the chosen cipher suite, whether the session was resumed, and how its decryption went.
public struct TLSInfo: Sendable, Equatable {
    /// How a TLS connection's records were read.
    public enum Decryption: String, Sendable {
        /// Decrypted with the key log: its exchanges are read from the plaintext, exactly as in clear text.
        case decrypted
        /// No key log was given: the exchanges are inferred from record directions.
        case noKeyLog = "no-key-log"
        /// The key log holds no secrets for this connection's client random.
        case keysMissing = "keys-missing"
        /// The key log's secrets did not authenticate its records (a wrong key, or damage).
        case undecryptable
        /// The chosen cipher suite is not one decrypted here (`cipherSuite` names it).
        case unsupportedCipherSuite = "unsupported-cipher-suite"
        /// The hellos were not captured (the capture began after them): no client random to look up.
        case handshakeMissing = "handshake-missing"
    }

    /// SNI from the ClientHello.
    public var serverName: String?
    /// ALPN protocols the client offered, in its order.
    public var offeredALPN: [String] = []
    /// "TLSv1.3", "TLSv1.2"…: the ServerHello's supported_versions extension, else its legacy version.
    public var version: String?
    /// The ALPN protocol in the ServerHello (TLS 1.2 and older), or in the decrypted EncryptedExtensions (TLS 1.3).
    public var chosenALPN: String?
    /// The IANA name of the cipher suite the ServerHello chose (only reported with a key log).
    public var cipherSuite: String?
    /// True when the server resumed an earlier session (TLS 1.2 session id or ticket, TLS 1.3 PSK); nil without a
    /// key log.
    public var resumed: Bool?
    /// How the records were read.
    public var decryption = Decryption.noKeyLog
    /// Why the decryption did not happen or stopped, in a sentence; nil when it went through.
    public var decryptionNote: String?

    /// True when the connection's exchanges are inferred from record directions rather than read from decrypted
    /// records: request counts, HTTP/2 streams and their concurrency cannot be verified then.
    public var exchangesInferred: Bool { decryption != .decrypted }

    public init() {}

    /// The name of a TLS protocol version number.
    package static func versionName(_ v: UInt16) -> String {
        switch v {
        case 0x0304: "TLSv1.3"
        case 0x0303: "TLSv1.2"
        case 0x0302: "TLSv1.1"
        case 0x0301: "TLSv1.0"
        case 0x0300: "SSLv3"
        default: "0x" + String(v, radix: 16)
        }
    }
}
