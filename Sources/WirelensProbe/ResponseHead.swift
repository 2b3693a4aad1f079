import WirelensCore

/// The head of the response a transfer is receiving, built from libcurl's header lines as they come: the status of
/// the latest response (an interim 1xx included) and, of the final one, what the engine and the record keep.
///
/// Only Location, Retry-After and Content-Type are always kept, their values read straight from the bytes; the other
/// lines become `HeaderField`s only when the run captures headers.
struct ResponseHead {
    var status: Int?
    /// True once a final (non-1xx) status line came: the lines after it are that response's.
    private(set) var inFinalResponse = false
    private(set) var location: String?
    private(set) var retryAfter: String?
    /// The final response's reason phrase and Content-Type, kept with or without captured headers.
    private(set) var statusText: String?
    private(set) var contentType: String?
    /// The final response's header lines, when captured (redacted when they become the record's).
    private(set) var headers: [HeaderField] = []
    let capturesHeaders: Bool

    init(capturesHeaders: Bool) {
        self.capturesHeaders = capturesHeaders
    }

    /// Takes one header line (status lines included); true when it is the status line of a final response (a later
    /// one replaces what an earlier final response left, as libcurl moves on to it).
    mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if let code = RawHeader.statusCode(bytes) {
            status = code
            inFinalResponse = code >= 200
            guard inFinalResponse else { return false }
            location = nil
            retryAfter = nil
            statusText = RawHeader.reasonPhrase(bytes)
            contentType = nil
            headers.removeAll()
            return true
        }
        guard inFinalResponse else { return false }
        if RawHeader.hasName(bytes, "location") {
            location = RawHeader.value(bytes)
        } else if RawHeader.hasName(bytes, "retry-after") {
            retryAfter = RawHeader.value(bytes)
        } else if RawHeader.hasName(bytes, "content-type") {
            contentType = RawHeader.value(bytes)
        }
        if capturesHeaders, let field = HeaderField.parse(String(decoding: bytes, as: UTF8.self)) {
            headers.append(field)
        }
        return false
    }

    /// True when the response is a redirect that will be followed: a 3xx with a Location.
    var isRedirect: Bool {
        guard let status else { return false }
        return (300..<400).contains(status) && location != nil
    }
}
