internal import CCurl
// With CCurlShim: see Libcurl.swift.
internal import CCurlShim

/// A URL's parts as libcurl's own URL parser (curl_url) reads them: the parser the transfer will use.
public struct CurlURL: Sendable {
    /// Why libcurl could not parse a URL, in its own words.
    public struct Failure: Error, Sendable {
        public let reason: String
    }

    /// The scheme as written (nil when there is none).
    public var scheme: String?
    /// The host as libcurl gives it (IPv6 in brackets); empty when there is none.
    public var host: String
    /// The port, the scheme's default when none is written.
    public var port: Int?
    /// The user name and password, percent-encoded as written.
    public var user: String?
    public var password: String?

    /// Parses `text`.
    public init(_ text: String) throws(Failure) {
        let handle = try Self.handle(text)
        defer { curl_url_cleanup(handle) }
        scheme = Self.part(handle, CURLUPART_SCHEME)
        host = Self.part(handle, CURLUPART_HOST) ?? ""
        port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) }
        user = Self.part(handle, CURLUPART_USER)
        password = user == nil ? nil : Self.part(handle, CURLUPART_PASSWORD)
    }

    /// `text` with its user name and password replaced (removed when nil), as libcurl writes it; nil when libcurl
    /// cannot.
    public static func rewrite(_ text: String, user: String?, password: String?) throws(Failure) -> String? {
        let handle = try Self.handle(text)
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_USER, user, 0) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_PASSWORD, password, 0) == CURLUE_OK else { return nil }
        return part(handle, CURLUPART_URL)
    }

    private static func handle(_ text: String) throws(Failure) -> OpaquePointer {
        guard let handle = curl_url() else { throw Failure(reason: "curl_url() returned NULL") }
        let code = curl_url_set(handle, CURLUPART_URL, text, 0)
        guard code == CURLUE_OK else {
            curl_url_cleanup(handle)
            throw Failure(reason: curl_url_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)")
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
