internal import CCurl
// With CCurlShim: see Libcurl.swift.
internal import CCurlShim

/// A URL's parts as libcurl's own URL parser (curl_url) reads them: the parser the transfer will use.
package struct CurlURL: Sendable {
    /// Why libcurl could not parse a URL: what went wrong, and libcurl's words for it.
    package struct Failure: Error, Sendable, Equatable {
        /// What went wrong.
        package enum Kind: Sendable, Equatable {
            /// curl_url() made no handle (libcurl is out of memory): the URL was never looked at.
            case noHandle
            /// curl_url_set refused the URL with this CURLUcode (CURLUE_BAD_PORT_NUMBER, CURLUE_MALFORMED_INPUT, ...).
            case unparsable(code: Int32)
        }

        package let kind: Kind
        /// libcurl's text for the failure (curl_url_strerror), or what failed when libcurl has none.
        package let reason: String
    }

    /// The scheme as written (nil when there is none).
    package var scheme: String?
    /// The host as libcurl gives it (IPv6 in brackets); empty when there is none.
    package var host: String
    /// The port, the scheme's default when none is written.
    package var port: Int?
    /// The user name and password, percent-encoded as written.
    package var user: String?
    package var password: String?

    /// Parses `text`.
    package init(_ text: String) throws(Failure) {
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
    package static func rewrite(_ text: String, user: String?, password: String?) throws(Failure) -> String? {
        let handle = try Self.handle(text)
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_USER, user, 0) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_PASSWORD, password, 0) == CURLUE_OK else { return nil }
        return part(handle, CURLUPART_URL)
    }

    private static func handle(_ text: String) throws(Failure) -> OpaquePointer {
        guard let handle = curl_url() else { throw Failure(kind: .noHandle, reason: "curl_url() returned NULL") }
        let code = curl_url_set(handle, CURLUPART_URL, text, 0)
        guard code == CURLUE_OK else {
            curl_url_cleanup(handle)
            throw Failure(kind: .unparsable(code: Int32(code.rawValue)),
                          reason: curl_url_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)")
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
