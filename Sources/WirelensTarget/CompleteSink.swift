import NIOCore
import NIOPosix
import WirelensDigest
import WirelensWire

/// `POST /upload/{id}/complete`: discards the body, then answers the assembled size and SHA-256 (digested on
/// the thread pool), 409 with the missing ranges, or 404. The answer is remembered until a part changes.
/// With the `wrong_digest` fault the SHA-256 answered is that of the true digest's bytes, not the file's.
final class CompleteSink: BodySink {
    private let endpoints: TargetEndpoints
    private let id: String
    private let wrongDigest: Bool

    init(endpoints: TargetEndpoints, id: String, wrongDigest: Bool) {
        self.endpoints = endpoints
        self.id = id
        self.wrongDigest = wrongDigest
    }

    /// The reply carrying `answer`, its digest replaced by a wrong one under the `wrong_digest` fault.
    private static func reply(_ answer: CompleteAnswer, wrongDigest: Bool) -> Reply {
        var answer = answer
        if wrongDigest { answer.sha256 = SHA256Digest.hex(of: Array(answer.sha256.utf8)) }
        return .json(.ok, answer)
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
            return eventLoop.makeSucceededFuture(.json(.conflict, MissingRangesAnswer(missing: ranges)))
        case .done(let answer):
            return eventLoop.makeSucceededFuture(Self.reply(answer, wrongDigest: wrongDigest))
        case .compute(let version, let total, let parts):
            let wrongDigest = wrongDigest
            return endpoints.threadPool.runIfActive(eventLoop: eventLoop) {
                let answer: CompleteAnswer
                do {
                    let sha = try UploadStore.assembledDigest(total: total, parts: parts)
                    answer = CompleteAnswer(id: id, size: total, sha256: sha, parts: parts.count)
                } catch {
                    return Reply.failure(TargetFailure(status: .internalServerError, message: "\(error)"))
                }
                store.remember(id: id, version: version, answer: answer)
                return Self.reply(answer, wrongDigest: wrongDigest)
            }
        }
    }
}
