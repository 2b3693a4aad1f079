internal import CCurlShim
import WirelensCore

/// The easy-handle options every transfer of a task profile shares, in libcurl's terms: built once per profile by
/// the layer that holds the run's policy, set on each handle by `EasyConfigurator`.
package struct CurlSettings: Sendable, Equatable {
    /// CURLOPT_CONNECTTIMEOUT_MS (nil: libcurl's default).
    package var connectTimeoutMillis: Int?
    /// CURLOPT_IPRESOLVE: 4 or 6 for one family only, nil for either.
    package var ipFamily: Int?
    /// CURLOPT_EXPECT_100_TIMEOUT_MS (nil: libcurl's one second).
    package var expectContinueTimeoutMillis: Int?
    /// CURLOPT_ACCEPT_ENCODING "": every encoding this libcurl decodes, named in Accept-Encoding.
    package var acceptsEncodings = false
    /// libcurl's verbose text goes to stderr, redacted.
    package var verbose = false
    /// CURLOPT_PROXY.
    package var proxy: String?
    /// CURLOPT_CAINFO.
    package var caFile: String?
    /// False turns CURLOPT_SSL_VERIFYPEER and CURLOPT_SSL_VERIFYHOST off.
    package var verifiesPeer = true
    /// The lowest and highest TLS 1.x minor version allowed (CURLOPT_SSLVERSION); nil for libcurl's default bound.
    package var tlsMinimumMinor: Int?
    package var tlsMaximumMinor: Int?
    /// CURLOPT_DOH_URL: names resolved by DNS over HTTPS (libcurl's own easy handles, A and AAAA in parallel).
    package var dohURL: String?
    /// False turns CURLOPT_DOH_SSL_VERIFYPEER and CURLOPT_DOH_SSL_VERIFYHOST off.
    package var dohVerifiesPeer = true
    /// CURLOPT_INTERFACE.
    package var interface: String?
    /// Sockets opened as IPPROTO_MPTCP through CURLOPT_OPENSOCKETFUNCTION (plain TCP where the kernel refuses it).
    package var multipath = false
    /// CURLOPT_AWS_SIGV4 with CURLOPT_USERNAME and CURLOPT_PASSWORD, for the transfers that keep credentials.
    package var awsSigV4: SigV4Signing?

    package init() {}

    /// CURLOPT_SSLVERSION's value: the lowest version ORed with the highest; nil when neither bound is set.
    var sslVersion: Int? {
        if tlsMinimumMinor == nil, tlsMaximumMinor == nil { return nil }
        return Int(wl_sslversion_min(Int32(tlsMinimumMinor ?? -1)) | wl_sslversion_max(Int32(tlsMaximumMinor ?? -1)))
    }
}
