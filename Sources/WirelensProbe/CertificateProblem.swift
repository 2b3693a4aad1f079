import WirelensCore
import WirelensCurl

/// Why a server's certificate expiry is unknown (`CertificateExpiry`), each with its one line.
package enum CertificateProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL is not https://: there is no certificate to read.
    case notHTTPS(url: String)
    /// libcurl refused an option of the connect-only handshake.
    case options(CurlError)
    /// The TLS handshake failed.
    case handshake(CurlError)
    /// libcurl gave no certificate information.
    case noInformation
    /// No certificate of the chain carries an expiry date that parses.
    case noExpiryDate

    package var description: String {
        switch self {
        case .notHTTPS(let url): "no certificate: \(Redactor.url(url)) is not https://"
        case .options: "libcurl refused the certificate-info options"
        case .handshake(let failure): "TLS handshake for the certificate failed: \(failure.message)"
        case .noInformation: "libcurl gave no certificate information"
        case .noExpiryDate: "the server's certificates carry no expiry date"
        }
    }
}
