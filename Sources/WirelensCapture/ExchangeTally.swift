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
        for exchange in exchanges { add(exchange) }
    }

    /// Counts one exchange.
    mutating func add(_ e: HTTPExchange) {
        count += 1
        if e.stream == nil && !e.inferred { http1 += 1 }
        if e.complete { complete += 1 }
        if e.pipelined { pipelined += 1 }
        maxPipelineDepth = max(maxPipelineDepth, e.pipelineDepth)
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
