import CCurl
import WirelensCore

/// A URL checked with libcurl's own parser (the same one the transfer will use).
public struct TargetURL: Sendable, Equatable {
    /// The URL as given.
    public var text: String
    /// "http" or "https".
    public var scheme: String
    /// The host, without brackets for IPv6.
    public var host: String
    /// True when the host is an IPv4 or IPv6 literal.
    public var hostIsIPLiteral: Bool

    /// Parses and checks `text`; only http and https are accepted.
    public init(_ text: String) throws(ProbeError) {
        guard let handle = curl_url() else { throw ProbeError.engine("curl_url() returned NULL") }
        defer { curl_url_cleanup(handle) }
        let code = curl_url_set(handle, CURLUPART_URL, text, 0)
        guard code == CURLUE_OK else {
            let reason = curl_url_strerror(code).map { String(cString: $0) } ?? "code \(code.rawValue)"
            throw ProbeError.malformedURL(text, reason: reason)
        }
        func part(_ which: CURLUPart) -> String? {
            var out: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &out, 0) == CURLUE_OK, let out else { return nil }
            defer { curl_free(out) }
            return String(cString: out)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased() else {
            throw ProbeError.malformedURL(text, reason: "no scheme")
        }
        guard scheme == "http" || scheme == "https" else { throw ProbeError.unsupportedScheme(text, scheme: scheme) }
        guard var host = part(CURLUPART_HOST), !host.isEmpty else {
            throw ProbeError.malformedURL(text, reason: "no host")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.text = text
        self.scheme = scheme
        self.host = host
        hostIsIPLiteral = TargetURL.isIPLiteral(host)
    }

    /// True for dotted-quad IPv4 and for IPv6 literals.
    public static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
}
