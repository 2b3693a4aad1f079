import WirelensCore
import WirelensCurl

/// Why a probe could not start: bad input found before any transfer, or an engine failure.
package enum ProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A URL that does not parse.
    case malformedURL(String, reason: String)
    /// A scheme other than http and https.
    case unsupportedScheme(String, scheme: String)
    /// A local file that cannot be used.
    case localFile(path: String, reason: String)
    /// libcurl refused an option or failed to start.
    case curl(CurlError)
    /// libcurl's URL parser could not start (curl_url() made no handle): the URL was never looked at.
    case urlParser(CurlURL.Failure)
    /// A header (or the User-Agent) that would split the request: `RequestTextCheck`'s reason.
    case invalidHeader(String)
    /// The server's certificate expiry could not be read.
    case certificate(CertificateProblem)
    /// The task was cancelled before it had its answer.
    case cancelled

    package var description: String {
        switch self {
        case .malformedURL(let url, let reason):
            "malformed URL '\(Redactor.url(url))': \(reason); give a full URL such as http://127.0.0.1:8080/path"
        case .unsupportedScheme(let url, let scheme):
            "unsupported scheme '\(scheme)' in '\(Redactor.url(url))': only http and https are probed"
        case .localFile(let path, let reason):
            "cannot use file '\(path)': \(reason)"
        case .curl(let error):
            "engine error: \(error.description)"
        case .urlParser(let failure):
            "engine error: \(failure.reason)"
        case .invalidHeader(let problem):
            "engine error: \(problem)"
        case .certificate(let problem):
            "engine error: \(problem.description)"
        case .cancelled:
            "engine error: cancelled"
        }
    }
}
