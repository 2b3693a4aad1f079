/// Totals over every connection of a capture.
public struct CaptureSummary: Sendable, Equatable {
    public var connections = 0
    /// Connections whose SYN was captured.
    public var connectionsWithHandshake = 0
    /// The most connections open at the same instant (first to last packet).
    public var maxConcurrentConnections = 0
    public var servers: [ServerSummary] = []
    public var exchanges = 0
    /// Exchanges whose request and final response were both seen to the end.
    public var completeExchanges = 0
    public var pipelinedRequests = 0
    public var maxPipelineDepth = 0
    /// The most exchanges on one connection.
    public var maxExchangesPerConnection = 0
    public var clientBytes: Int64 = 0
    public var serverBytes: Int64 = 0
    public var retransmissions = 0
    public var outOfOrder = 0
    public var zeroWindow = 0
    public var windowFull = 0
    public var resets = 0
    public var captureGaps = 0
    public var captureGapBytes: Int64 = 0

    public init() {}
}
