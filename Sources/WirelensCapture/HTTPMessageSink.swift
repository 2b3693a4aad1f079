/// Receives an `HTTPMessageParser`'s events the moment the bytes complete them (no list is built in between).
protocol HTTPMessageSink {
    mutating func handle(_ event: HTTPMessageParser.Event)
    /// The text of a request target the parser read (`HTTPHead.target`), from its raw bytes (at most 2048).
    mutating func targetText(_ bytes: UnsafeRawBufferPointer) -> String
}

extension HTTPMessageSink {
    /// The bytes as they are (invalid UTF-8 repaired).
    mutating func targetText(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
