internal import COpenSSL

/// Facts about the OpenSSL libcrypto this process runs with.
package enum Libcrypto {
    /// The running libcrypto's version number, as OpenSSL itself reports it at run time (e.g. "3.0.17").
    package static var version: String {
        OpenSSL_version(OPENSSL_VERSION_STRING).map { String(cString: $0) } ?? "unknown"
    }
}
