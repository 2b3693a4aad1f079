/// Receives an `HTTPMessageParser`'s events the moment the bytes complete them (no list is built in between).
protocol HTTPMessageSink {
    mutating func handle(_ event: HTTPMessageParser.Event)
}
