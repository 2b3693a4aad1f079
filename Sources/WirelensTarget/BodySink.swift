import NIOCore

/// Takes a request body as it streams in and, once it has ended, makes the reply.
protocol BodySink: AnyObject {
    /// The next bytes of the body.
    func consume(_ buffer: ByteBuffer)
    /// The body ended after `bodyBytes` bytes: the reply, possibly computed off the event loop.
    func finish(bodyBytes: Int64, eventLoop: EventLoop) -> EventLoopFuture<Reply>
    /// The connection went away before the body ended: drop what was kept.
    func abandon()
}
