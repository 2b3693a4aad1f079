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
    /// TLS connections, and those whose records were not decrypted (their exchanges inferred), with the exchanges
    /// inferred on them; HTTP/1.x exchanges read (the ones pipelining figures are about). Not in the JSON summary:
    /// each connection's `tls.exchangesInferred` and the `tls-inferred` caveat carry them.
    public var tlsConnections = 0
    public var inferredConnections = 0
    public var inferredExchanges = 0
    public var http1Exchanges = 0
    /// Why the TLS connections were not decrypted, and how many of each ("no-key-log": 3).
    public var notDecrypted: [String: Int] = [:]

    public init() {}
}
