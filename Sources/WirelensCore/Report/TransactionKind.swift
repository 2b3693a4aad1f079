/// Why a transaction happened within its task.
public enum TransactionKind: String, Sendable, Codable {
    /// The task's first request.
    case initial
    /// A hop that follows a redirect.
    case redirect
    /// Another attempt after a failure.
    case retry
}
