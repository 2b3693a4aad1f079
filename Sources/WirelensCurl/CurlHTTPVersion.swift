internal import CCurlShim

/// The HTTP version an easy handle asks for (CURLOPT_HTTP_VERSION), in libcurl's own terms.
package enum CurlHTTPVersion: Sendable, Equatable {
    /// libcurl's default: the option is not set.
    case libcurlDefault
    /// CURL_HTTP_VERSION_1_1.
    case http1_1
    /// CURL_HTTP_VERSION_2TLS: HTTP/2 over TLS by ALPN, HTTP/1.1 in clear text.
    case http2TLS
    /// CURL_HTTP_VERSION_2_0: HTTP/2, by upgrade in clear text; joins an open h2c connection without switching it again.
    case http2
    /// CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE: HTTP/2 from the first byte.
    case http2PriorKnowledge
    /// CURL_HTTP_VERSION_3: HTTP/3, falling back to older versions.
    case http3
    /// CURL_HTTP_VERSION_3ONLY.
    case http3Only

    /// The option's value, nil for libcurl's default.
    var optionValue: Int? {
        switch self {
        case .libcurlDefault: nil
        case .http1_1: wl_http_version_1_1()
        case .http2TLS: wl_http_version_2tls()
        case .http2: wl_http_version_2_0()
        case .http2PriorKnowledge: wl_http_version_2_prior_knowledge()
        case .http3: wl_http_version_3()
        case .http3Only: wl_http_version_3only()
        }
    }
}
