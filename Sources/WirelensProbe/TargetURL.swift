import CCurl
import WirelensCore

/// A URL checked with libcurl's own parser (the same one the transfer will use).
public struct TargetURL: Sendable, Equatable {
    /// The URL as given.
    public var text: String
    /// "http" or "https".
    public var scheme: String
    /// The host, without brackets for IPv6.
    public var host: String
    /// True when the host is an IPv4 or IPv6 literal.
    public var hostIsIPLiteral: Bool
    /// Scheme, host and port (the default port when none is written), for the redirect rules.
    public var origin: Origin
    /// The user info (`user:password@`) the URL carries, as written (percent-encoded); nil when it has none.
    public var userInfo: UserInfo?

    /// The `user[:password]` part of a URL's authority, percent-encoded as written.
    public struct UserInfo: Sendable, Equatable {
        public var user: String
        public var password: String?
    }

    /// Parses and checks `text`; only http and https are accepted.
    public init(_ text: String) throws(ProbeError) {
        let parsed = try Parsed(text)
        guard parsed.origin.scheme == "http" || parsed.origin.scheme == "https" else {
            throw ProbeError.unsupportedScheme(text, scheme: parsed.origin.scheme)
        }
        guard !parsed.host.isEmpty else { throw ProbeError.malformedURL(text, reason: "no host") }
        var host = parsed.host
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.text = text
        scheme = parsed.origin.scheme
        self.host = host
        hostIsIPLiteral = TargetURL.isIPLiteral(host)
        origin = parsed.origin
        userInfo = parsed.userInfo
    }

    /// The origin of any URL libcurl can parse, whatever its scheme (a redirect's Location is judged before it is
    /// followed).
    public static func origin(of text: String) throws(ProbeError) -> Origin {
        try Parsed(text).origin
    }

    /// The same URL with other user info (nil: none), as libcurl writes it.
    public func replacingUserInfo(_ info: UserInfo?) throws(ProbeError) -> TargetURL {
        try TargetURL(Parsed.rewrite(text, userInfo: info))
    }

    /// True for dotted-quad IPv4 and for IPv6 literals.
    public static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }

    /// A URL's parts as libcurl's URL parser reads them.
    private struct Parsed {
        var origin: Origin
        /// The host as libcurl gives it (IPv6 in brackets); empty when there is none.
        var host: String
        var userInfo: UserInfo?

        init(_ text: String) throws(ProbeError) {
            let handle = try Self.handle(text)
            defer { curl_url_cleanup(handle) }
            guard let scheme = Self.part(handle, CURLUPART_SCHEME)?.lowercased() else {
                throw ProbeError.malformedURL(text, reason: "no scheme")
            }
            host = Self.part(handle, CURLUPART_HOST) ?? ""
            let port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) }
            origin = Origin(scheme: scheme, host: host, port: port)
            userInfo = Self.part(handle, CURLUPART_USER).map {
                UserInfo(user: $0, password: Self.part(handle, CURLUPART_PASSWORD))
            }
        }

        /// `text` with its user info replaced by `info` (removed when nil).
        static func rewrite(_ text: String, userInfo info: UserInfo?) throws(ProbeError) -> String {
            let handle = try Self.handle(text)
            defer { curl_url_cleanup(handle) }
            guard curl_url_set(handle, CURLUPART_USER, info?.user, 0) == CURLUE_OK,
                  curl_url_set(handle, CURLUPART_PASSWORD, info?.password, 0) == CURLUE_OK,
                  let rewritten = part(handle, CURLUPART_URL) else {
                throw ProbeError.malformedURL(text, reason: "its user info could not be replaced")
            }
            return rewritten
        }

        private static func handle(_ text: String) throws(ProbeError) -> OpaquePointer {
            guard let handle = curl_url() else { throw ProbeError.engine("curl_url() returned NULL") }
            let code = curl_url_set(handle, CURLUPART_URL, text, 0)
            guard code == CURLUE_OK else {
                curl_url_cleanup(handle)
                let reason = curl_url_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"
                throw ProbeError.malformedURL(text, reason: reason)
            }
            return handle
        }

        private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32 = 0) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &out, flags) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
    }
}
