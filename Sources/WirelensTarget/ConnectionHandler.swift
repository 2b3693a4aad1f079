import NIOCore
import NIOHTTP1
import WirelensCore
#if canImport(Glibc)
import Glibc
#endif

/// Serves one connection: routes each request, streams its body into a sink with the read rate capped
/// (autoRead is off; a token bucket decides when to issue the next `read()`), then answers after the latency
/// and stall, streaming the reply body at the write rate with back-pressure (one chunk at a time, waiting for
/// writability), and injects the connection faults (reset after N bytes, Connection: close).
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A reply body being sent.
    private struct Outgoing {
        var body: ReplyBody
        var sent: Int64 = 0
        /// Reset the connection after this many body bytes instead of ending the response.
        var resetAt: Int64?
        /// Pause for `pauseMicros` once this many body bytes were sent (cleared when the pause begins).
        var pauseAt: Int64?
        var pauseMicros: Int64 = 0
    }

    private let endpoints: TargetEndpoints
    private let chunkSize: Int
    private var inBucket: TokenBucket?
    private var outBucket: TokenBucket?
    private var requests = 0
    private var closed = false
    private var readScheduled = false

    private var head: HTTPRequestHead?
    private var sink: BodySink?
    private var faults = FaultPlan()
    private var bodyBytes: Int64 = 0
    private var resetOnBody: Int64?
    private var closeAfter = false
    private var outgoing: Outgoing?
    private var pumpScheduled = false
    private var lastWrite: EventLoopFuture<Void>?

    init(endpoints: TargetEndpoints) {
        self.endpoints = endpoints
        let rate = endpoints.config.rateBytesPerSecond
        chunkSize = TokenBucket.chunkSize(rate: rate)
        if let rate {
            let now = NIODeadline.now().uptimeNanoseconds
            inBucket = TokenBucket(rate: rate, burst: Int64(chunkSize), now: now)
            outBucket = TokenBucket(rate: rate, burst: Int64(chunkSize), now: now)
        }
    }

    private static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    func channelActive(context: ChannelHandlerContext) {
        context.fireChannelActive()
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        sink?.abandon()
        sink = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        closed = true
        sink?.abandon()
        sink = nil
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closed else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            begin(context: context, head: head)
        case .body(let buffer):
            guard let sink else { return }
            bodyBytes += Int64(buffer.readableBytes)
            inBucket?.take(buffer.readableBytes, now: Self.now())
            if let limit = resetOnBody, bodyBytes >= limit {
                reset(context: context)
                return
            }
            sink.consume(buffer)
        case .end:
            finishRequest(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        scheduleRead(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, outgoing != nil, !pumpScheduled { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    /// Issues the next read now, or when the read budget allows.
    private func scheduleRead(context: ChannelHandlerContext) {
        guard !closed, !readScheduled else { return }
        let wait = inBucket?.delay(now: Self.now()) ?? 0
        guard wait > 0 else {
            context.read()
            return
        }
        readScheduled = true
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(wait)) { [self] in
            readScheduled = false
            scheduleRead(context: context)
        }
    }

    /// A request head: route it, pick its sink and faults, answer `Expect: 100-continue`.
    private func begin(context: ChannelHandlerContext, head: HTTPRequestHead) {
        requests += 1
        bodyBytes = 0
        let (path, query) = TargetRoute.split(uri: head.uri)
        let config = endpoints.config
        switch config.faults.applying(query: query) {
        case .success(let plan):
            faults = plan
            sink = endpoints.sink(for: head, route: TargetRoute.resolve(method: head.method, path: path), faults: plan)
        case .failure(let failure):
            faults = config.faults
            sink = FixedReplySink(.failure(failure))
        }
        self.head = head
        closeAfter = !config.keepAlive || !head.isKeepAlive
            || config.maxRequestsPerConnection.map { requests >= $0 } ?? false
        let length = head.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0
        let chunked = head.headers[canonicalForm: "Transfer-Encoding"].contains { $0.lowercased() == "chunked" }
        resetOnBody = (length > 0 || chunked) ? faults.resetAfter : nil
        if resetOnBody == 0 {
            reset(context: context)
            return
        }
        if head.headers[canonicalForm: "Expect"].contains(where: { $0.lowercased() == "100-continue" }) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))),
                                  promise: nil)
        }
    }

    /// The request ended: make the reply, then answer after the latency, stall and endpoint delay.
    private func finishRequest(context: ChannelHandlerContext) {
        guard let sink, let head else { return }
        self.sink = nil
        let faults = faults
        let latency = endpoints.config.latencyMicros
        sink.finish(bodyBytes: bodyBytes, eventLoop: context.eventLoop).assumeIsolated().whenComplete { [self] result in
            guard !closed else { return }
            let reply: Reply
            switch result {
            case .success(let made): reply = made
            case .failure(let error):
                reply = .failure(TargetFailure(status: .internalServerError, message: "\(error)"))
            }
            let wait = latency + faults.stallMicros + reply.delayMicros
            guard wait > 0 else {
                respond(context: context, head: head, reply: reply)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: .microseconds(wait)) { [self] in
                guard !closed else { return }
                respond(context: context, head: head, reply: reply)
            }
        }
    }

    /// Writes the reply's head and starts its body.
    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead, reply: Reply) {
        var headers = reply.headers
        let code = reply.status.code
        let bodiless = code < 200 || code == 204 || code == 304
        if !bodiless { headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.count)) }
        headers.replaceOrAdd(name: "Connection", value: closeAfter ? "close" : "keep-alive")
        if let informational = reply.informational {
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: informational))), promise: nil)
        }
        lastWrite = context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: reply.status, headers: headers))))
        let sendsBody = head.method != .HEAD && !bodiless
        var outgoing = Outgoing(body: sendsBody ? reply.body : .empty)
        if sendsBody, resetOnBody == nil, let n = faults.resetAfter { outgoing.resetAt = reply.body.resetPoint(after: n) }
        if sendsBody, let n = faults.pauseAfter, n < reply.body.count {
            outgoing.pauseAt = n
            outgoing.pauseMicros = faults.pauseMicros
        }
        self.outgoing = outgoing
        pump(context: context)
    }

    /// Sends body chunks while the channel is writable and the write budget allows; then ends or resets.
    private func pump(context: ChannelHandlerContext) {
        guard !closed, var out = outgoing else { return }
        let target = out.resetAt ?? out.body.count
        while out.sent < target {
            if let pauseAt = out.pauseAt, out.sent >= pauseAt {
                out.pauseAt = nil
                outgoing = out
                pumpScheduled = true
                context.eventLoop.assumeIsolated().scheduleTask(in: .microseconds(out.pauseMicros)) { [self] in
                    pumpScheduled = false
                    pump(context: context)
                }
                return
            }
            guard context.channel.isWritable else {
                outgoing = out
                return
            }
            if let wait = outBucket?.delay(now: Self.now()), wait > 0 {
                outgoing = out
                pumpScheduled = true
                context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(wait)) { [self] in
                    pumpScheduled = false
                    pump(context: context)
                }
                return
            }
            let n = Int(min(Int64(chunkSize), (out.pauseAt ?? target) - out.sent, target - out.sent))
            let chunk = Self.chunk(of: out.body, from: out.sent, count: n, allocator: context.channel.allocator)
            outBucket?.take(n, now: Self.now())
            lastWrite = context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))))
            out.sent += Int64(n)
        }
        outgoing = nil
        if out.resetAt != nil {
            // Written to the kernel, then acknowledged by the peer: only then can an RST not discard those bytes.
            let written = lastWrite ?? context.eventLoop.makeSucceededVoidFuture()
            let channel = context.channel
            written.flatMap { SendQueue.drained(channel) }.assumeIsolated().whenComplete { [self] _ in
                reset(context: context)
            }
            return
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] _ in
            responseDone(context: context)
        }
    }

    /// `count` bytes of `body` from body offset `start`.
    private static func chunk(of body: ReplyBody, from start: Int64, count: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        switch body {
        case .empty:
            return allocator.buffer(capacity: 0)
        case .bytes(let buffer):
            return buffer.getSlice(at: buffer.readerIndex + Int(start), length: count) ?? allocator.buffer(capacity: 0)
        case .pattern(let offset, _):
            var buffer = allocator.buffer(capacity: count)
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                PatternBytes.fill(UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), offset: offset + start)
                return count
            }
            return buffer
        }
    }

    /// The response ended: close or read the next request.
    private func responseDone(context: ChannelHandlerContext) {
        head = nil
        guard !closed else { return }
        if closeAfter {
            closed = true
            context.close(promise: nil)
        } else {
            scheduleRead(context: context)
        }
    }

    /// Resets the connection: SO_LINGER 0, then close, so the peer gets an RST.
    private func reset(context: ChannelHandlerContext) {
        closed = true
        sink?.abandon()
        sink = nil
        guard let provider = context.channel as? SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
