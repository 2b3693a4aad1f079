import WirelensCore

/// Why the target server could not start.
public struct TargetError: Error, CustomStringConvertible {
    public let message: String
    /// The exit code for the CLI: a data directory problem is a local-file error, an unusable listen address
    /// `listenUnavailable`.
    public let exitStatus: ExitStatus
    public var description: String { message }

    public init(message: String, exitStatus: ExitStatus) {
        self.message = message
        self.exitStatus = exitStatus
    }
}
