/// Which connection a transfer's attempt ran on: its 4-tuple as PREREQFUNCTION gave it, libcurl's number for it and
/// the TLS facts its verbose text told (or that a reused connection's first transfer told).
struct ConnectionIdentity: Equatable {
    var remoteIP: String?
    var localIP: String?
    var remotePort: Int?
    var localPort: Int?
    /// libcurl's `#N` from "Connected to" or "Re-using existing connection".
    var connectionId: Int?
    var tlsVersion: String?
    var tlsCipher: String?
    var alpn: String?

    /// True when the attempt's own verbose text told a TLS fact (so it is the one to remember for the connection).
    var toldTLS: Bool { tlsVersion != nil || alpn != nil }

    /// The TLS facts as the per-connection table keeps them.
    var tls: ConnectionSockets.TLSFacts { (tlsVersion, tlsCipher, alpn) }

    /// Takes a reused connection's remembered TLS facts.
    mutating func adopt(_ known: ConnectionSockets.TLSFacts) {
        tlsVersion = known.version
        tlsCipher = known.cipher
        alpn = known.alpn
    }
}
