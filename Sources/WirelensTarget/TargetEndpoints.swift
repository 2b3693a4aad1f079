import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import WirelensWire

/// What the server shares between its connections: its configuration, the upload store and a thread pool for
/// work too long for an event loop (digesting an assembled upload). Makes each request's body sink and reply.
final class TargetEndpoints: Sendable {
    let config: TargetConfig
    let store: UploadStore
    let threadPool: NIOThreadPool
    /// Requests seen per request target, for `fail_first` (at most `maxCountedTargets` targets are counted).
    private let seen = Mutex<[String: Int]>([:])
    static let maxCountedTargets = 10_000

    init(config: TargetConfig, store: UploadStore, threadPool: NIOThreadPool) {
        self.config = config
        self.store = store
        self.threadPool = threadPool
    }

    /// The sink for a request whose head just arrived, given its route (or failure) and faults.
    func sink(for head: HTTPRequestHead, route resolution: Result<TargetRoute, TargetFailure>, faults: FaultPlan) -> BodySink {
        let route: TargetRoute
        switch resolution {
        case .success(let resolved): route = resolved
        case .failure(let failure): return FixedReplySink(Self.reply(for: failure))
        }
        if faults.failFirst > 0 {
            let count = seen.withLock { seen -> Int in
                guard seen[head.uri] != nil || seen.count < Self.maxCountedTargets else { return .max }
                seen[head.uri, default: 0] += 1
                return seen[head.uri] ?? .max
            }
            if count <= faults.failFirst {
                var headers = HTTPHeaders()
                if let retryAfter = faults.retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
                return FixedReplySink(.failure(TargetFailure(
                    status: .serviceUnavailable, message: "injected failure \(count) of \(faults.failFirst)"), headers: headers))
            }
        }
        if let status = faults.status {
            var headers = HTTPHeaders()
            if let retryAfter = faults.retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
            return FixedReplySink(.failure(TargetFailure(status: HTTPResponseStatus(statusCode: status),
                                                         message: "injected status \(status)"), headers: headers))
        }
        switch route {
        case .index: return FixedReplySink(.json(.ok, Self.index))
        case .bytes(let count): return FixedReplySink(Self.bytes(count, range: head.headers.first(name: "Range")))
        case .delay(let ms):
            var reply = Reply.json(.ok, .object([.init("delay_ms", .int(ms))]))
            reply.delayMicros = ms * 1000
            return FixedReplySink(reply)
        case .status(let code): return FixedReplySink(Self.status(code))
        case .redirect(let n): return FixedReplySink(Self.redirect(n))
        case .uploadState(let id):
            guard let listing = store.listing(id: id) else { return FixedReplySink(.failure(Self.unknown(id))) }
            return FixedReplySink(.json(.ok, listing))
        case .upload(let id):
            switch MultipartDigest.boundary(contentType: head.headers.first(name: "Content-Type")) {
            case .success(let boundary): return UploadSink(id: id, boundary: boundary)
            case .failure(let failure): return FixedReplySink(.failure(failure))
            }
        case .part(let id, let index):
            return partSink(head: head, id: id, index: index)
        case .complete(let id):
            let call = store.completeCall(id: id)
            if call <= faults.failComplete {
                return FixedReplySink(.failure(TargetFailure(
                    status: .serviceUnavailable, message: "injected failure of complete call \(call)")))
            }
            return CompleteSink(endpoints: self, id: id, wrongDigest: faults.wrongDigest)
        }
    }

    /// The answer to a routing failure; a 405 names the allowed methods in an Allow header too.
    private static func reply(for failure: TargetFailure) -> Reply {
        var headers = HTTPHeaders()
        if failure.status == .methodNotAllowed, let allow = failure.extra.first(where: { $0.0 == "allow" }) {
            headers.add(name: "Allow", value: allow.1.trimmingCharacters(in: ["\""]))
        }
        return .failure(failure, headers: headers)
    }

    private func partSink(head: HTTPRequestHead, id: String, index: Int) -> BodySink {
        let range: ContentRangeHeader
        switch ContentRangeHeader.parse(head.headers.first(name: "Content-Range")) {
        case .success(let parsed): range = parsed
        case .failure(let failure): return FixedReplySink(.failure(failure))
        }
        if let length = head.headers.first(name: "Content-Length").flatMap({ Int64($0) }), length != range.length {
            return FixedReplySink(.failure(.badRequest(
                "part \(index) has Content-Length \(length) but its Content-Range announces \(range.length) bytes")))
        }
        let attempt: Int
        switch store.begin(id: id, index: index, total: range.total) {
        case .success(let n): attempt = n
        case .failure(let failure): return FixedReplySink(.failure(failure))
        }
        if config.partFailures.fails(id: id, index: index, attempt: attempt) {
            return FixedReplySink(.failure(TargetFailure(
                status: .serviceUnavailable, message: "injected failure of part \(index), attempt \(attempt)")))
        }
        do {
            return try PartSink(store: store, id: id, index: index, range: range)
        } catch {
            return FixedReplySink(.failure(error))
        }
    }

    static func unknown(_ id: String) -> TargetFailure { .notFound("no upload with id '\(id)'") }

    /// `GET /`: the endpoints.
    static let index = JSONValue.object([
        .init("server", .string("wirelens target")),
        .init("endpoints", .array([
            "GET /bytes/{n}", "GET /delay/{ms}", "GET /status/{code}", "GET /redirect/{n}", "PUT|POST /upload/{id}",
            "PUT /upload/{id}/part/{index}", "POST /upload/{id}/complete", "GET /upload/{id}",
        ].map(JSONValue.string))),
        .init("faults", .array(["reset_after=N", "stall=S", "status=CODE", "retry_after=S", "pause_after=N", "pause=S", "fail_first=N", "fail_complete=N",
                                 "wrong_digest=1"].map(JSONValue.string))),
    ])

    /// `GET /bytes/{n}` with an optional Range header: 200, 206 or 416.
    static func bytes(_ count: Int64, range: String?) -> Reply {
        var headers = HTTPHeaders()
        headers.add(name: "Accept-Ranges", value: "bytes")
        switch ByteRangeRequest.parse(range, length: count) {
        case .whole:
            headers.add(name: "Content-Type", value: "application/octet-stream")
            return Reply(status: .ok, headers: headers, body: .pattern(offset: 0, count: count))
        case .partial(let first, let last):
            headers.add(name: "Content-Type", value: "application/octet-stream")
            headers.add(name: "Content-Range", value: "bytes \(first)-\(last)/\(count)")
            return Reply(status: .partialContent, headers: headers, body: .pattern(offset: first, count: last - first + 1))
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(count)")
            return .failure(TargetFailure(status: .rangeNotSatisfiable,
                                          message: "range '\(range ?? "")' selects no byte of \(count)"), headers: headers)
        }
    }

    /// `GET /status/{code}`: that status; 1xx (but 101) as an interim response before a 200.
    static func status(_ code: Int) -> Reply {
        if code == 101 {
            return .failure(.badRequest("101 would switch protocols; ask for another status"))
        }
        if code < 200 {
            var reply = Reply.json(.ok, .object([.init("status", .int(200)), .init("informational", .int(Int64(code)))]))
            reply.informational = HTTPResponseStatus(statusCode: code)
            return reply
        }
        if code == 204 || code == 304 { return Reply(status: HTTPResponseStatus(statusCode: code)) }
        return .json(HTTPResponseStatus(statusCode: code), .object([.init("status", .int(Int64(code)))]))
    }

    /// `GET /redirect/{n}`: 302 to `/redirect/{n-1}`, and 200 at 0.
    static func redirect(_ n: Int) -> Reply {
        guard n > 0 else { return .json(.ok, .object([.init("redirect", .int(0))])) }
        var headers = HTTPHeaders()
        headers.add(name: "Location", value: "/redirect/\(n - 1)")
        return .json(.found, .object([.init("redirect", .int(Int64(n))), .init("location", .string("/redirect/\(n - 1)"))]),
                     headers: headers)
    }
}
