/// The start line and the framing headers of one HTTP/1.x message.
struct HTTPHead {
    /// What a request's method means for the framing of its response.
    enum MethodKind {
        /// The response has no body (HEAD).
        case head
        /// A 2xx response opens a tunnel (CONNECT).
        case connect
        case other
    }

    var method: String?
    /// The method's kind, for a request.
    var methodKind = MethodKind.other
    var target: String?
    /// A request line's version.
    var version: String?
    /// A status line's version: the bytes of its digits (`HTTP/major.minor`), for `HTTPMessageParser.versionName`.
    var statusVersion: (major: UInt8, minor: UInt8)?
    var status: Int?
    var contentLength: Int64?
    var chunked = false
    /// Transfer-Encoding present without chunked last: the body runs to the connection's close.
    var otherTransferEncoding = false
    var upgrade: String?

    /// Empties the head for the next message, in place: without a string to release (a parser that reads no
    /// start-line text, a message without Upgrade) that is a few stores, where a new value cost the release of each.
    mutating func clear() {
        // Only the strings set are released (a response head holds none but an Upgrade's).
        if method != nil { method = nil }
        if target != nil { target = nil }
        if version != nil { version = nil }
        if upgrade != nil { upgrade = nil }
        methodKind = .other
        statusVersion = nil
        status = nil
        contentLength = nil
        chunked = false
        otherTransferEncoding = false
    }
}
