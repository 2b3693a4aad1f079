import WirelensCore

/// Why the target server could not start: one line, and what went wrong, for the caller's exit code.
package struct TargetError: Error, CustomStringConvertible {
    /// What could not be used.
    package enum Cause: Sendable, Equatable {
        /// The listen address (in use, not of this host, privileged).
        case listen(ListenFailure)
        /// The data directory (cannot be made or written).
        case dataDirectory
    }

    package let message: String
    package let cause: Cause
    package var description: String { message }

    package init(message: String, cause: Cause) {
        self.message = message
        self.cause = cause
    }
}
