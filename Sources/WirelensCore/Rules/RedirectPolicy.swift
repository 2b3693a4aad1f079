/// Decides how a redirect is followed, as browsers and `curl -L` do, one transaction per hop.
public enum RedirectPolicy {
    /// The request to send for the next hop.
    public struct Hop: Sendable, Equatable {
        public var method: String
        /// False when the body is dropped (the method became GET).
        public var keepsBody: Bool
    }

    /// Why a redirect is not followed.
    public enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The Location names a scheme other than http and https (ftp:, file:, gopher:, …).
        case scheme(String)
        /// The Location's host is an address in 169.254.0.0/16 or fe80::/10 (cloud metadata lives there), or a name
        /// that resolved to one (shown as `name (address)`).
        case linkLocal(String)

        public var description: String {
            switch self {
            case .scheme(let scheme):
                "refused to follow a redirect to a \(scheme): URL: only http and https redirects are followed"
            case .linkLocal(let host):
                "refused to follow a redirect to \(host), a link-local address (169.254.0.0/16 and fe80::/10 hold "
                    + "cloud metadata services); a check follows it only with allow_link_local_redirects: true"
            }
        }
    }

    /// The next hop for a response, or nil when the status is not a redirect that can be followed.
    ///
    /// 303 turns every method but HEAD into GET; 301 and 302 turn POST into GET; 307 and 308 keep method and body.
    public static func next(status: Int, method: String, hasLocation: Bool) -> Hop? {
        guard hasLocation else { return nil }
        switch status {
        case 301, 302:
            return method == "POST" ? Hop(method: "GET", keepsBody: false) : Hop(method: method, keepsBody: true)
        case 303:
            return method == "HEAD" ? Hop(method: "HEAD", keepsBody: false) : Hop(method: "GET", keepsBody: false)
        case 307, 308:
            return Hop(method: method, keepsBody: true)
        default:
            return nil
        }
    }

    /// Why a redirect to `next` may not be followed, or nil when it may.
    ///
    /// Only http and https are followed. A link-local host (an address literal; names are judged by the address
    /// they resolve to, see `LinkLocalAddress`) is refused unless `allowsLinkLocal`, or unless it is the task's own
    /// origin (`first`): the user named that one.
    public static func refusal(next: Origin, first: Origin, allowsLinkLocal: Bool) -> Refusal? {
        guard next.scheme == "http" || next.scheme == "https" else { return .scheme(next.scheme) }
        if !allowsLinkLocal, next != first, LinkLocalAddress.contains(literal: next.host) { return .linkLocal(next.host) }
        return nil
    }

    /// True when a transaction to `next` may carry the user's credentials: the secret headers (those `Redactor`
    /// masks: Authorization, Cookie, tokens, keys, …) and the URL's user info.
    ///
    /// As `curl -L`: only to the task's first origin (same scheme, host and port), unless the user trusts every
    /// hop (`--location-trusted`, a check's `trusted_redirects: true`). A hop back to the first origin carries them
    /// again, as curl's does.
    public static func keepsCredentials(first: Origin, next: Origin, trusted: Bool) -> Bool {
        trusted || first == next
    }

    /// The headers a transaction sends: all of them when it keeps credentials, else those that carry no secret.
    public static func headers(_ headers: [HeaderField], keepsCredentials: Bool) -> [HeaderField] {
        keepsCredentials ? headers : headers.filter { !Redactor.isSensitive(name: $0.name) }
    }
}
