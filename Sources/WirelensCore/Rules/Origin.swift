/// The scheme, host and port of a URL: what decides whether a redirect stays with the server the user named.
///
/// Compared as curl compares them before it sends credentials on: scheme and host case-insensitively (both are
/// kept lowercased), IPv6 brackets dropped, and the port given explicitly or the scheme's default.
package struct Origin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lowercased ("http", "https", or any other a Location named).
    package let scheme: String
    /// The host, lowercased, without the brackets of an IPv6 literal; empty for a URL without one (file:).
    package let host: String
    /// The port: the one written, else the scheme's default, else 0.
    package let port: Int

    /// An origin from a URL's parts; a nil port takes the scheme's default.
    package init(scheme: String, host: String, port: Int?) {
        self.scheme = scheme.lowercased()
        var host = Substring(host.lowercased())
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.host = String(host)
        self.port = port ?? Self.defaultPort(scheme: self.scheme) ?? 0
    }

    /// The default port of a scheme, when it has a well-known one.
    package static func defaultPort(scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http", "ws": 80
        case "https", "wss": 443
        case "ftp": 21
        case "ftps": 990
        default: nil
        }
    }

    /// `scheme://host:port`, IPv6 hosts in brackets.
    package var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shown):\(port)"
    }
}
