/// The connections to one server endpoint: how many, and how many at once.
public struct ServerSummary: Sendable, Equatable {
    public var server: Endpoint
    public var connections: Int
    /// The most connections to this server open at the same instant (first to last packet).
    public var maxConcurrent: Int
    public var exchanges: Int

    public init(server: Endpoint, connections: Int, maxConcurrent: Int, exchanges: Int) {
        self.server = server
        self.connections = connections
        self.maxConcurrent = maxConcurrent
        self.exchanges = exchanges
    }
}
