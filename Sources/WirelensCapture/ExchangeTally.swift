import WirelensCaptureModel

/// What the capture summary counts of a connection's exchanges, without the exchanges themselves: a connection
/// that is never handed over (beyond the text summary's listed ones) folds its finished HTTP/1.x exchanges into
/// one of these instead of keeping them (`HTTP1Exchanges`).
struct ExchangeTally: Equatable {
    /// Exchanges.
    var count = 0
    /// HTTP/1.x exchanges read from the bytes (not HTTP/2 streams, not inferred from TLS records).
    var http1 = 0
    /// Exchanges whose request and final response were both seen to their last byte.
    var complete = 0
    /// Requests sent before the previous response had ended.
    var pipelined = 0
    /// The deepest pipeline (0 without exchanges).
    var maxPipelineDepth = 0

    init() {}

    /// The tally of `exchanges`.
    init(of exchanges: [HTTPExchange]) {
        exchanges.withUnsafeBufferPointer { add($0) }
    }

    /// Counts `exchanges` (read where they lie: no copy of an exchange).
    mutating func add(_ exchanges: UnsafeBufferPointer<HTTPExchange>) {
        for i in exchanges.indices {
            count += 1
            if exchanges[i].stream == nil && !exchanges[i].inferred { http1 += 1 }
            if exchanges[i].complete { complete += 1 }
            if exchanges[i].pipelined { pipelined += 1 }
            maxPipelineDepth = max(maxPipelineDepth, exchanges[i].pipelineDepth)
        }
    }

    /// Adds another tally's counts.
    mutating func add(_ other: ExchangeTally) {
        count += other.count
        http1 += other.http1
        complete += other.complete
        pipelined += other.pipelined
        maxPipelineDepth = max(maxPipelineDepth, other.maxPipelineDepth)
    }
}
