import WirelensCore

/// How a segmented upload ended: completed, stopped, or why it failed (the CLI turns it into its exit code).
public enum UploadEnding: Sendable, Equatable {
    /// Every segment was accepted and, with a complete call, the server's assembled file matched the local one.
    case completed
    /// Stopped (the engine was cancelled) before every segment was sent or the complete call answered.
    case interrupted
    /// An attempt or the complete call failed in transport, with the class of its error (never `.http`).
    case transportFailed(ErrorClass)
    /// The server turned the upload down: an HTTP error status no retry changed (the segment API missing, the
    /// complete call refused, byte ranges missing), or attempts that failed until the retries ran out without a
    /// transport error.
    case refused
    /// The server answered in success but not as the protocol says (no part JSON, no size and SHA-256 from the
    /// complete call), or with a status that is neither a success nor an error.
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
