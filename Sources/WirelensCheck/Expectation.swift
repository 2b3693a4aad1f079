/// One assertion of a check, as configured under `expect:`.
package enum Expectation: Sendable, Equatable {
    /// The final status is one of these codes.
    case status([Int])
    /// The phase took at most this many µs (a phase that did not happen passes).
    case maxPhase(CheckPhase, Int64)
    /// The upload ran at least this many bytes per second over its send phase.
    case minUploadThroughput(Double)
    /// The download ran at least this many bytes per second over its receive phase.
    case minDownloadThroughput(Double)
    /// The final transaction reused a pooled connection.
    case reuseRequired
    /// At most this many retries were needed.
    case maxRetries(Int)
    /// The server's certificate stays valid for at least this many days.
    case certificateDays(Int)
    /// The response body contains this text.
    case bodyContains(String)
    /// The task ended without a transport error and with a status below 400 (implied when `status` is not given).
    case succeeded

    /// The assertion's name, as its key under `expect:` (and in reports).
    package var name: String {
        switch self {
        case .status: "status"
        case .maxPhase(let phase, _): phase.rawValue
        case .minUploadThroughput: "upload_throughput"
        case .minDownloadThroughput: "download_throughput"
        case .reuseRequired: "reuse"
        case .maxRetries: "retries"
        case .certificateDays: "certificate"
        case .bodyContains: "body_contains"
        case .succeeded: "success"
        }
    }
}
