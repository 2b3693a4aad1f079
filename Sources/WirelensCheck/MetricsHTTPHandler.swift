import NIOCore
import NIOHTTP1

/// Answers each HTTP request with what `respond` computes for its method and URI, then closes the connection.
final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response: status, content type and body.
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var contentType: String
        var body: String
    }

    private let respond: @Sendable (_ method: HTTPMethod, _ uri: String) async -> Response
    private var head: HTTPRequestHead?

    /// A handler that answers with `respond` (called off the event loop, as it may run a check).
    init(respond: @escaping @Sendable (_ method: HTTPMethod, _ uri: String) async -> Response) {
        self.respond = respond
    }

    /// Collects the request head and answers at its end; request bodies are ignored.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let respond = self.respond
            let promise = context.eventLoop.makePromise(of: Response.self)
            promise.completeWithTask { await respond(head.method, head.uri) }
            let bound = NIOLoopBound((context, self), eventLoop: context.eventLoop)
            promise.futureResult.whenSuccess { response in
                let (context, handler) = bound.value
                handler.write(response, version: head.version, context: context)
            }
        }
    }

    /// Writes the response and closes the connection once it is flushed.
    private func write(_ response: Response, version: HTTPVersion, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: response.body.utf8.count)
        buffer.writeString(response.body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
