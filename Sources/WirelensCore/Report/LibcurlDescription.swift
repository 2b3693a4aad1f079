/// The libcurl a run used: version, TLS backend and the features that shape what can be measured.
public struct LibcurlDescription: Sendable, Codable, Equatable {
    public var version: String
    public var sslBackend: String?
    public var http2: Bool
    public var http3: Bool
    public var asyncDNS: Bool
    public var ipv6: Bool
    /// nghttp2's version when HTTP/2 is built in.
    public var nghttp2: String?

    public init(version: String, sslBackend: String?, http2: Bool, http3: Bool, asyncDNS: Bool, ipv6: Bool,
                nghttp2: String?) {
        self.version = version
        self.sslBackend = sslBackend
        self.http2 = http2
        self.http3 = http3
        self.asyncDNS = asyncDNS
        self.ipv6 = ipv6
        self.nghttp2 = nghttp2
    }

    /// The version as (major, minor, patch), or nil when it does not parse.
    public var versionTriple: (Int, Int, Int)? {
        let parts = version.split(separator: ".").compactMap { Int($0.prefix { $0.isNumber }) }
        guard parts.count >= 2 else { return nil }
        return (parts[0], parts[1], parts.count > 2 ? parts[2] : 0)
    }
}
