/// Receives an `HTTPMessageParser`'s events the moment the bytes complete them (no list is built in between).
protocol HTTPMessageSink {
    mutating func handle(_ event: HTTPMessageParser.Event)
    /// The text of a request target the parser read (`HTTPHead.target`), from its raw bytes (at most 2048): the sink
    /// says how it is shown (`HTTP1Exchanges` redacts it), so no target reaches a head unredacted by default.
    mutating func targetText(_ bytes: UnsafeRawBufferPointer) -> String
}
