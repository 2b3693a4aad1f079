import WirelensCore
import WirelensCurl

/// A URL checked with libcurl's own parser (the same one the transfer will use).
package struct TargetURL: Sendable, Equatable {
    /// The URL as given.
    package var text: String
    /// "http" or "https".
    package var scheme: String
    /// The host, without brackets for IPv6.
    package var host: String
    /// True when the host is an IPv4 or IPv6 literal.
    package var hostIsIPLiteral: Bool
    /// Scheme, host and port (the default port when none is written), for the redirect rules.
    package var origin: Origin
    /// The user info (`user:password@`) the URL carries, as written (percent-encoded); nil when it has none.
    package var userInfo: UserInfo?

    /// The `user[:password]` part of a URL's authority, percent-encoded as written.
    package struct UserInfo: Sendable, Equatable {
        package var user: String
        package var password: String?
    }

    /// Parses and checks `text`; only http and https are accepted.
    package init(_ text: String) throws(ProbeError) {
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
    package static func origin(of text: String) throws(ProbeError) -> Origin {
        try Parsed(text).origin
    }

    /// The same URL with other user info (nil: none), as libcurl writes it.
    package func replacingUserInfo(_ info: UserInfo?) throws(ProbeError) -> TargetURL {
        try TargetURL(Parsed.rewrite(text, userInfo: info))
    }

    /// True for dotted-quad IPv4 and for IPv6 literals.
    package static func isIPLiteral(_ host: String) -> Bool {
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
            let url: CurlURL
            do {
                url = try CurlURL(text)
            } catch {
                throw Self.failure(text, error)
            }
            guard let scheme = url.scheme?.lowercased() else {
                throw ProbeError.malformedURL(text, reason: "no scheme")
            }
            host = url.host
            origin = Origin(scheme: scheme, host: host, port: url.port)
            userInfo = url.user.map { UserInfo(user: $0, password: url.password) }
        }

        /// `text` with its user info replaced by `info` (removed when nil).
        static func rewrite(_ text: String, userInfo info: UserInfo?) throws(ProbeError) -> String {
            let rewritten: String?
            do {
                rewritten = try CurlURL.rewrite(text, user: info?.user, password: info?.password)
            } catch {
                throw failure(text, error)
            }
            guard let rewritten else {
                throw ProbeError.malformedURL(text, reason: "its user info could not be replaced")
            }
            return rewritten
        }

        private static func failure(_ text: String, _ error: CurlURL.Failure) -> ProbeError {
            switch error.kind {
            case .noHandle: .urlParser(error)
            case .unparsable: .malformedURL(text, reason: error.reason)
            }
        }
    }
}
