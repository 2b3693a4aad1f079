/// Decides how a redirect is followed, as browsers and `curl -L` do, one transaction per hop.
package enum RedirectPolicy {
    /// A request as a redirect sees it: its method, how its body part goes out, and whether the user named the method.
    package struct Request: Sendable, Equatable {
        package var method: String
        /// nil: the request sends no body part (`BodyKind`).
        package var bodyKind: BodyKind?
        /// True when the method was named (`-X`): it stays on every hop (`TaskSpec.keepsMethod`).
        package var keepsMethod: Bool

        package init(method: String, bodyKind: BodyKind?, keepsMethod: Bool = false) {
            self.method = method
            self.bodyKind = bodyKind
            self.keepsMethod = keepsMethod
        }
    }

    /// The request to send for the next hop.
    package struct Hop: Sendable, Equatable {
        package var method: String
        /// How the hop sends the body (nil: it sends none, and none of the body's headers).
        package var bodyKind: BodyKind?

        /// False when the body is dropped.
        package var keepsBody: Bool { bodyKind != nil }
    }

    /// Why a redirect is not followed.
    package enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The Location names a scheme other than http and https (ftp:, file:, gopher:, …).
        case scheme(String)
        /// The Location's host is an address in 169.254.0.0/16 or fe80::/10 (cloud metadata lives there), or a name
        /// that resolved to one (shown as `name (address)`).
        case linkLocal(String)

        package var description: String {
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
    /// As curl 7.88 (`Curl_follow`): 301 and 302 turn a POST body (`-d`, `-F`) into a GET, unless the status is in
    /// `keepsPostAfter` (`--post301`, `--post302`); 303 drops any body and turns the request into a GET (HEAD stays
    /// HEAD), except a POST body with 303 in `keepsPostAfter` (`--post303`); 307 and 308 keep method and body. A
    /// method the user named stays the method of every hop, with the body dropped where a GET would have been sent.
    package static func next(status: Int, request: Request, keepsPostAfter: Set<Int> = [], hasLocation: Bool) -> Hop? {
        guard hasLocation else { return nil }
        let unchanged = Hop(method: request.method, bodyKind: request.bodyKind)
        let bodiless = Hop(method: request.keepsMethod || request.method == "HEAD" ? request.method : "GET", bodyKind: nil)
        switch status {
        case 301, 302:
            return request.bodyKind == .post && !keepsPostAfter.contains(status) ? bodiless : unchanged
        case 303:
            if request.bodyKind == .post && keepsPostAfter.contains(303) { return unchanged }
            return request.keepsMethod && request.bodyKind == nil ? unchanged : bodiless
        case 307, 308:
            return unchanged
        default:
            return nil
        }
    }

    /// The names of the headers that describe a body, which a hop without one does not send.
    package static let bodyHeaderNames: Set<String> = ["content-type", "content-length", "transfer-encoding"]

    /// A task's own headers (`TaskSpec.headers`) for a transaction that sends no body: without those that describe
    /// one (a form's or a `-d` body's Content-Type), as curl adds those only to a request with a body.
    package static func bodilessHeaders(_ headers: [HeaderField]) -> [HeaderField] {
        headers.filter { !bodyHeaderNames.contains($0.name.lowercased()) }
    }

    /// Why a redirect to `next` may not be followed, or nil when it may.
    ///
    /// Only http and https are followed. A link-local host (an address literal; names are judged by the address
    /// they resolve to, see `LinkLocalAddress`) is refused unless `allowsLinkLocal`, or unless it is the task's own
    /// origin (`first`): the user named that one.
    package static func refusal(next: Origin, first: Origin, allowsLinkLocal: Bool) -> Refusal? {
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
    package static func keepsCredentials(first: Origin, next: Origin, trusted: Bool) -> Bool {
        trusted || first == next
    }

    /// The headers a transaction sends: all of them when it keeps credentials, else those that carry no secret.
    package static func headers(_ headers: [HeaderField], keepsCredentials: Bool) -> [HeaderField] {
        keepsCredentials ? headers : headers.filter { !Redactor.isSensitive(name: $0.name) }
    }
}
