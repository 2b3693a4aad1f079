import WirelensCore

/// Why a probe could not start: bad input found before any transfer, or an engine failure.
public enum ProbeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A URL that does not parse.
    case malformedURL(String, reason: String)
    /// A scheme other than http and https.
    case unsupportedScheme(String, scheme: String)
    /// A local file that cannot be used.
    case localFile(path: String, reason: String)
    /// libcurl refused an option or failed to start.
    case engine(String)

    public var description: String {
        switch self {
        case .malformedURL(let url, let reason):
            "malformed URL '\(Redactor.url(url))': \(reason); give a full URL such as http://127.0.0.1:8080/path"
        case .unsupportedScheme(let url, let scheme):
            "unsupported scheme '\(scheme)' in '\(Redactor.url(url))': only http and https are probed"
        case .localFile(let path, let reason):
            "cannot use file '\(path)': \(reason)"
        case .engine(let message):
            "engine error: \(message)"
        }
    }
}
