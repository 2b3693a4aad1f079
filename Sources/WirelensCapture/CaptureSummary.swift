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

    /// The summary of `connections`.
    public init(of connections: [TCPConnection]) {
        self.connections = connections.count
        var events: [(time: Int64, delta: Int)] = []
        events.reserveCapacity(connections.count * 2)
        var perServer: [Endpoint: (connections: Int, exchanges: Int, events: [(Int64, Int)])] = [:]
        for c in connections {
            if c.handshakeSeen { connectionsWithHandshake += 1 }
            events.append((c.firstPacketAt, 1))
            events.append((c.inUseUntil, -1))
            perServer[c.server, default: (0, 0, [])].connections += 1
            perServer[c.server, default: (0, 0, [])].exchanges += c.exchanges.count
            perServer[c.server, default: (0, 0, [])].events += [(c.firstPacketAt, 1), (c.inUseUntil, -1)]
            exchanges += c.exchanges.count
            maxExchangesPerConnection = max(maxExchangesPerConnection, c.exchanges.count)
            for e in c.exchanges {
                if e.complete { completeExchanges += 1 }
                if e.pipelined { pipelinedRequests += 1 }
                maxPipelineDepth = max(maxPipelineDepth, e.pipelineDepth)
            }
            for (d, isClient) in [(c.clientToServer, true), (c.serverToClient, false)] {
                if isClient { clientBytes += d.bytes } else { serverBytes += d.bytes }
                retransmissions += d.retransmissions
                outOfOrder += d.outOfOrder
                zeroWindow += d.zeroWindow
                windowFull += d.windowFull
                resets += d.resets
                captureGaps += d.captureGaps
                captureGapBytes += d.captureGapBytes
            }
        }
        maxConcurrentConnections = Self.peak(events)
        servers = perServer.map { server, value in
            ServerSummary(server: server, connections: value.connections, maxConcurrent: Self.peak(value.events),
                          exchanges: value.exchanges)
        }.sorted { $0.server < $1.server }
    }

    /// The highest running sum of +1 (open) / -1 (close) events; at equal times closes count first.
    static func peak(_ events: [(Int64, Int)]) -> Int {
        var running = 0
        var best = 0
        for (_, delta) in events.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
            running += delta
            best = max(best, running)
        }
        return best
    }
}
