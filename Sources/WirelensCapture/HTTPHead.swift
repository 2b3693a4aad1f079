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
    var version: String?
    var status: Int?
    var contentLength: Int64?
    var chunked = false
    /// Transfer-Encoding present without chunked last: the body runs to the connection's close.
    var otherTransferEncoding = false
    var upgrade: String?
}
