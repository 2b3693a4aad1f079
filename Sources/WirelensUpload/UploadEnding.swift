import WirelensCore

/// How a segmented upload ended: completed, stopped, or why it failed (the CLI turns it into its exit code).
package enum UploadEnding: Sendable, Equatable {
    /// Every segment was accepted and, with a complete call, the server's assembled file matched the local one.
    case completed
    /// Stopped (the engine was cancelled) before every segment was sent or the complete call answered.
    case interrupted
    /// An attempt or the complete call failed in transport, with the class of its error (never `.http`).
    case transportFailed(ErrorClass)
    /// The server turned the upload down: a segment answered with an HTTP error status no retry changes (the
    /// segment API missing) or kept failing without a transport error until its retries (or the failures in a row)
    /// ran out, or the complete call answered other than 2xx (409: byte ranges missing).
    case refused
    /// A segment's answer was no HTTP error and no transport failure but not the protocol's (a 2xx without the part
    /// JSON, a 1xx or 3xx), or the complete call's 2xx lacked the assembled file's size and SHA-256.
    case unreadableAnswer
    /// The complete call answered, but the server's assembled file differs from the local one (size or SHA-256).
    case verificationFailed

    /// The ending for an attempt (or complete call) that failed for good with `record`'s error, or `otherwise` when
    /// the record holds no error: a transport class as `transportFailed`, an HTTP status as `refused`.
    static func failed(_ record: TaskRecord, otherwise: UploadEnding) -> UploadEnding {
        guard let errorClass = record.error?.errorClass else { return otherwise }
        return errorClass == .http ? .refused : .transportFailed(errorClass)
    }
}
