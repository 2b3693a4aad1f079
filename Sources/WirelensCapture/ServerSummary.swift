/// The connections to one server endpoint: how many, and how many at once.
public struct ServerSummary: Sendable, Equatable {
    public var server: Endpoint
    public var connections: Int
    /// The most connections to this server open at the same instant (first to last packet).
    public var maxConcurrent: Int
    public var exchanges: Int
}
