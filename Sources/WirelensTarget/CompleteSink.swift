import NIOCore
import NIOPosix
import WirelensWire

/// `POST /upload/{id}/complete`: discards the body, then answers the assembled size and SHA-256 (digested on
/// the thread pool), 409 with the missing ranges, or 404. The answer is remembered until a part changes.
final class CompleteSink: BodySink {
    private let endpoints: TargetEndpoints
    private let id: String

    init(endpoints: TargetEndpoints, id: String) {
        self.endpoints = endpoints
        self.id = id
    }

    func consume(_ buffer: ByteBuffer) {}

    func abandon() {}

    func finish(bodyBytes: Int64, eventLoop: EventLoop) -> EventLoopFuture<Reply> {
        let store = endpoints.store
        let id = id
        switch store.completion(id: id) {
        case .unknown:
            return eventLoop.makeSucceededFuture(.failure(TargetEndpoints.unknown(id)))
        case .missing(let ranges):
            return eventLoop.makeSucceededFuture(.json(.conflict, MissingRangesAnswer(missing: ranges).json))
        case .done(let answer):
            return eventLoop.makeSucceededFuture(.json(.ok, answer))
        case .compute(let version, let total, let parts):
            return endpoints.threadPool.runIfActive(eventLoop: eventLoop) {
                let answer: JSONValue
                do {
                    let sha = try UploadStore.assembledDigest(total: total, parts: parts)
                    answer = CompleteAnswer(id: id, size: total, sha256: sha, parts: parts.count).json
                } catch {
                    return Reply.failure(TargetFailure(status: .internalServerError, message: "\(error)"))
                }
                store.remember(id: id, version: version, answer: answer)
                return Reply.json(.ok, answer)
            }
        }
    }
}
