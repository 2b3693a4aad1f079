/// Decides how a redirect is followed, as browsers and `curl -L` do, one transaction per hop.
public enum RedirectPolicy {
    /// The request to send for the next hop.
    public struct Hop: Sendable, Equatable {
        public var method: String
        /// False when the body is dropped (the method became GET).
        public var keepsBody: Bool
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
}
