import Foundation
import NIOCore
import WirelensDigest
import WirelensWire

/// `PUT /upload/{id}/part/{index}`: writes the body to a temporary file while hashing it, and records the part
/// (renamed into place) only when exactly the announced number of bytes arrived.
final class PartSink: BodySink {
    private let store: UploadStore
    private let id: String
    private let index: Int
    private let range: ContentRangeHeader
    private let path: String
    private var fd: Int32
    private let digest = SHA256Digest()
    private var failure: TargetFailure?

    /// Opens the part's temporary file; throws a 500 when it cannot be created.
    init(store: UploadStore, id: String, index: Int, range: ContentRangeHeader) throws(TargetFailure) {
        self.store = store
        self.id = id
        self.index = index
        self.range = range
        path = try store.temporaryPath(id: id, index: index)
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TargetFailure(status: .internalServerError, message: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { abandon() }

    func consume(_ buffer: ByteBuffer) {
        guard failure == nil, fd >= 0 else { return }
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            digest.update(bytes)
            var done = 0
            while done < bytes.count {
                let n = write(fd, base + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = TargetFailure(status: .internalServerError,
                                            message: "cannot write part \(index): \(String(cString: strerror(errno)))")
                    return
                }
                done += n
            }
        }
    }

    func finish(bodyBytes: Int64, eventLoop: EventLoop) -> EventLoopFuture<Reply> {
        close(fd)
        fd = -1
        if failure == nil, bodyBytes != range.length {
            failure = .badRequest("part \(index) has \(bodyBytes) bytes but its Content-Range announces \(range.length)")
        }
        if let failure {
            unlink(path)
            return eventLoop.makeSucceededFuture(.failure(failure))
        }
        if case .failure(let failure) = store.record(id: id, index: index, range: range, temporaryPath: path) {
            return eventLoop.makeSucceededFuture(.failure(failure))
        }
        let answer = PartAnswer(id: id, index: index, offset: range.first, length: range.length, sha256: digest.finalize())
        return eventLoop.makeSucceededFuture(.json(.ok, answer))
    }

    func abandon() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        unlink(path)
    }
}
