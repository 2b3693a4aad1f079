import NIOCore
import WirelensDigest
import WirelensWire

/// `PUT|POST /upload/{id}`: hashes the body as it streams and, for multipart/form-data, each part.
final class UploadSink: BodySink {
    private let id: String
    private let digest = SHA256Digest()
    private let multipart: MultipartDigest?

    init(id: String, boundary: String?) {
        self.id = id
        multipart = boundary.map(MultipartDigest.init(boundary:))
    }

    func consume(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { digest.update($0) }
        multipart?.feed(buffer)
    }

    func finish(bodyBytes: Int64, eventLoop: EventLoop) -> EventLoopFuture<Reply> {
        var members: [JSONValue.Member] = [
            .init("id", .string(id)), .init("bytes", .int(bodyBytes)), .init("sha256", .string(digest.finalize())),
        ]
        if let multipart {
            switch multipart.finish() {
            case .success(let parts): members.append(.init("parts", .array(parts.map(\.json))))
            case .failure(let failure): return eventLoop.makeSucceededFuture(.failure(failure))
            }
        }
        return eventLoop.makeSucceededFuture(.json(.ok, .object(members)))
    }

    func abandon() {}
}
