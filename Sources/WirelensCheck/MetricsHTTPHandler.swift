import NIOCore
import NIOHTTP1

/// Answers each HTTP request with what `respond` computes for its method and URI, then closes the connection.
///
/// Within `ServeLimits`: the request must have arrived within the header timeout of the accept, else the connection
/// is closed unanswered; a head beyond the cap (the decoder's limit, reported as `headerOverflow`) is answered 431,
/// a body beyond its cap 413, any other unparsable request 400, each followed by the close; an `IdleStateHandler`
/// in front reports idle connections, closed unless their answer is being computed.
final class MetricsHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response: status, content type and body.
    struct Response: Sendable {
        var status: HTTPResponseStatus
        var contentType: String
        var body: String

        /// A plain-text answer.
        static func text(_ status: HTTPResponseStatus, _ body: String) -> Response {
            Response(status: status, contentType: "text/plain; charset=utf-8", body: body)
        }
    }

    /// Where the connection is: reading its request, waiting for `respond`, or answered (or refused).
    private enum Stage { case reading, answering, done }

    private let respond: @Sendable (_ method: HTTPMethod, _ uri: String) async -> Response
    private let limits: ServeLimits
    private let answers: AnswerCount
    private var head: HTTPRequestHead?
    private var bodyBytes = 0
    private var stage = Stage.reading
    private var deadline: Scheduled<Void>?

    /// A handler that answers with `respond` (called off the event loop, as it may run a check); `answers` counts
    /// the answers under way.
    init(limits: ServeLimits, answers: AnswerCount,
         respond: @escaping @Sendable (_ method: HTTPMethod, _ uri: String) async -> Response) {
        self.limits = limits
        self.answers = answers
        self.respond = respond
    }

    /// Starts the header timeout: the request must have arrived within it.
    func handlerAdded(context: ChannelHandlerContext) {
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .microseconds(limits.headerTimeout)) {
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    /// Collects the request head and answers at its end; a body is counted (against its cap) and dropped.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard stage == .reading else { return }
        let tooLarge = Response.text(.payloadTooLarge,
                                     "the request body is larger than \(limits.maxBodyBytes) bytes; /metrics and /probe take none\n")
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            // An announced length beyond the cap is refused before its body is sent (curl waits for a 100 first).
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limits.maxBodyBytes {
                refuse(tooLarge, context: context)
            }
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            if bodyBytes > limits.maxBodyBytes { refuse(tooLarge, context: context) }
        case .end:
            guard let head else { return }
            deadline?.cancel()
            stage = .answering
            answers.begin()
            let respond = self.respond
            let promise = context.eventLoop.makePromise(of: Response.self)
            promise.completeWithTask { await respond(head.method, head.uri) }
            promise.futureResult.assumeIsolated().whenSuccess { response in
                self.write(response, version: head.version, context: context)
            }
        }
    }

    /// A request the decoder cannot take: 431 for a head beyond the cap, else 400; then the close. Errors after a
    /// refusal (the rest of the refused request) are dropped while the connection lingers.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard stage != .done else { return }
        guard stage == .reading, let parserError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        if case .headerOverflow = parserError {
            refuse(.text(.requestHeaderFieldsTooLarge, "the request head is larger than \(limits.maxHeadBytes) bytes\n"),
                   context: context)
        } else {
            refuse(.text(.badRequest, "not an HTTP/1.1 request\n"), context: context)
        }
    }

    /// Closes an idle connection, unless its answer is being computed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if stage != .answering { context.close(promise: nil) }
    }

    /// Answers at once (a request beyond the limits), then lingers: its output closed, what the client still sends
    /// is read and dropped until it closes or `lingerTime` passes, so that the client reads the answer instead of
    /// a reset (closing with unread input would send one).
    private func refuse(_ response: Response, context: ChannelHandlerContext) {
        deadline?.cancel()
        answers.begin()
        write(response, version: head?.version ?? .http1_1, context: context, linger: true)
    }

    /// How long a refused connection lingers.
    static let lingerTime = TimeAmount.seconds(2)

    /// Writes the response and closes the connection once it is flushed (with `linger`, its output only, and the
    /// rest after `lingerTime` unless the client closes first).
    private func write(_ response: Response, version: HTTPVersion, context: ChannelHandlerContext, linger: Bool = false) {
        stage = .done
        var buffer = context.channel.allocator.buffer(capacity: response.body.utf8.count)
        buffer.writeString(response.body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))),
                      promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let answers = self.answers
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            answers.end()
            guard linger else {
                context.close(promise: nil)
                return
            }
            context.close(mode: .output, promise: nil)
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTime) { context.close(promise: nil) }
        }
    }
}
