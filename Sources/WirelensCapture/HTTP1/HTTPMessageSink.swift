/// Receives an `HTTPMessageParser`'s events the moment the bytes complete them (no list is built in between).
protocol HTTPMessageSink {
    mutating func handle(_ event: HTTPMessageParser.Event)
    /// A final message head (for responses: status 200 and up, or 101), lent while it is handed over: the sink may
    /// swap its strings out, so that they are neither copied nor released with the head (its framing fields are read
    /// after this returns, and must stay as they are).
    mutating func head(_ head: inout HTTPHead, headerBytes: Int, time: Int64)
    /// The kind of the method of the oldest request whose final response has not been read, taken off the queue
    /// (nil when there is none): a response parser asks when it reads a final response head.
    mutating func takeAwaitedMethod() -> HTTPHead.MethodKind?
    /// The text of a request target the parser read (`HTTPHead.target`), from its raw bytes (at most 2048): the sink
    /// says how it is shown (`HTTP1Exchanges` redacts it), so no target reaches a head unredacted by default.
    mutating func targetText(_ bytes: UnsafeRawBufferPointer) -> String
}
