import NIOCore

/// Discards the body and answers a reply fixed when the request head arrived.
final class FixedReplySink: BodySink {
    private let reply: Reply

    init(_ reply: Reply) {
        self.reply = reply
    }

    func consume(_ buffer: ByteBuffer) {}

    func finish(bodyBytes: Int64, eventLoop: EventLoop) -> EventLoopFuture<Reply> {
        eventLoop.makeSucceededFuture(reply)
    }

    func abandon() {}
}
