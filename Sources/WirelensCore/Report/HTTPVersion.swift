/// Which HTTP version the engine asks libcurl for.
public enum HTTPVersion: String, Sendable, Codable, CaseIterable {
    /// libcurl's default: HTTP/2 over TLS when the server offers it by ALPN, HTTP/1.1 otherwise.
    case auto
    /// HTTP/1.1 only.
    case http1_1 = "http/1.1"
    /// HTTP/2 over TLS (ALPN), HTTP/1.1 over clear text.
    case http2 = "h2"
    /// HTTP/2 over clear text without upgrade (h2c prior knowledge).
    case http2PriorKnowledge = "h2c-prior-knowledge"
    /// HTTP/3 over QUIC, falling back to HTTP/2 or HTTP/1.1 over TCP when QUIC fails (a libcurl with HTTP/3 only).
    case http3 = "h3"
    /// HTTP/3 over QUIC without a fallback (a libcurl with HTTP/3 only).
    case http3Only = "h3-only"
}
