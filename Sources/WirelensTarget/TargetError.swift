import WirelensCore

/// Why the target server could not start: one line, and what went wrong, for the caller's exit code.
public struct TargetError: Error, CustomStringConvertible {
    /// What could not be used.
    public enum Cause: Sendable, Equatable {
        /// The listen address (in use, not of this host, privileged).
        case listen(ListenFailure)
        /// The data directory (cannot be made or written).
        case dataDirectory
    }

    public let message: String
    public let cause: Cause
    public var description: String { message }

    public init(message: String, cause: Cause) {
        self.message = message
        self.cause = cause
    }
}
