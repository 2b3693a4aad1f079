/// The start line and the framing headers of one HTTP/1.x message.
struct HTTPHead {
    var method: String?
    var target: String?
    var version: String?
    var status: Int?
    var contentLength: Int64?
    var chunked = false
    /// Transfer-Encoding present without chunked last: the body runs to the connection's close.
    var otherTransferEncoding = false
    var upgrade: String?
}
