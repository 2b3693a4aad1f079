internal import CCurl
// Also CCurlShim, whose header includes curl.h too: in a clean build, a file importing CCurl alone did not see
// libcurl's constants (CURLE_OK, CURLINFO_*), while files importing both did.
internal import CCurlShim
#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Process-wide libcurl set-up and facts about the linked libcurl.
package enum Libcurl {
    /// Runs curl_global_init once and ignores SIGPIPE; called before any libcurl handle is made.
    package static func initialize() throws(CurlError) {
        if let failure = globalInit { throw failure }
    }

    private static let globalInit: CurlError? = {
        signal(SIGPIPE, SIG_IGN)
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return code == CURLE_OK ? nil : CurlError(easy: code, "curl_global_init")
    }()

    /// True when the linked libcurl cannot reuse or multiplex an h2c prior-knowledge connection (before 8.0.0).
    package static var h2cReuseBroken: Bool { description.h2cReuseBroken }

    /// Where this libcurl tells the facts of a transfer's connection: 7.88's verbose text.
    static let connectionFactsSource: any ConnectionFactsSource = VerboseTextFacts()

    /// The linked libcurl's version and features.
    package static let description: LibcurlDescription = {
        guard let info = curl_version_info(CURLVERSION_TENTH)?.pointee else {
            return LibcurlDescription(version: "unknown", sslBackend: nil, http2: false, http3: false, asyncDNS: false,
                                      ipv6: false, nghttp2: nil)
        }
        let features = Int(info.features)
        func has(_ bit: Int32) -> Bool { features & Int(bit) != 0 }
        return LibcurlDescription(
            version: info.version.map { String(cString: $0) } ?? "unknown",
            sslBackend: info.ssl_version.map { String(cString: $0) },
            http2: has(CURL_VERSION_HTTP2), http3: has(CURL_VERSION_HTTP3),
            asyncDNS: has(CURL_VERSION_ASYNCHDNS), ipv6: has(CURL_VERSION_IPV6),
            nghttp2: info.nghttp2_version.map { String(cString: $0) })
    }()
}
