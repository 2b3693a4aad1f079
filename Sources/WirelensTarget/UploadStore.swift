import Foundation
import Synchronization
import WirelensDigest
import WirelensWire

/// The segment uploads a server holds: part files on disk under a data directory, their ranges in memory.
///
/// A part is recorded only once fully received: it is written to a temporary file and renamed into place, to
/// `{id}/part-{index}-{offset}-{total}` (its length is the file's size), so a server started again on the
/// same data directory finds the parts it had.
final class UploadStore: Sendable {
    /// One received part.
    struct Part: Sendable, Equatable {
        var index: Int
        var offset: Int64
        var length: Int64
        var path: String
    }

    /// What `POST /upload/{id}/complete` has to do.
    enum Completion: Sendable {
        case unknown
        case missing([ClosedRange<Int64>])
        case done(CompleteAnswer)
        /// Digest these parts (sorted by offset) and remember the result under `version`.
        case compute(version: Int, total: Int64, parts: [Part])
    }

    private struct Upload {
        var total: Int64
        var parts: [Int: Part] = [:]
        var attempts: [Int: Int] = [:]
        var version = 0
        var completed: (version: Int, answer: CompleteAnswer)?
        var completeCalls = 0
    }

    /// The directory holding one subdirectory per upload id.
    let root: String
    private let uploads = Mutex<[String: Upload]>([:])
    private let sequence = Atomic<Int>(0)

    /// A store over `root`, holding the parts already there (temporary files of unfinished parts are removed).
    init(root: String) {
        self.root = root
        uploads.withLock { $0 = Self.scan(root) }
    }

    /// The uploads found under `root`: one directory per id, one file per part.
    private static func scan(_ root: String) -> [String: Upload] {
        var found: [String: Upload] = [:]
        let manager = FileManager.default
        for id in (try? manager.contentsOfDirectory(atPath: root)) ?? [] {
            guard case .success = TargetRoute.checkID(id) else { continue }
            let dir = root + "/" + id
            for name in (try? manager.contentsOfDirectory(atPath: dir)) ?? [] {
                let path = dir + "/" + name
                if name.contains(".tmp") {
                    unlink(path)
                    continue
                }
                let fields = name.split(separator: "-")
                guard fields.count == 4, fields[0] == "part", let index = Int(fields[1]), let offset = Int64(fields[2]),
                      let total = Int64(fields[3]), let size = (try? manager.attributesOfItem(atPath: path))?[.size] as? Int64,
                      size > 0, offset + size <= total else { continue }
                var upload = found[id] ?? Upload(total: total)
                guard upload.total == total else { continue }
                upload.parts[index] = Part(index: index, offset: offset, length: size, path: path)
                upload.attempts[index] = 1
                upload.version += 1
                found[id] = upload
            }
        }
        return found
    }

    private func directory(_ id: String) -> String { root + "/" + id }

    /// Registers an attempt at part `index` of `id` with `total`; returns its attempt number (1 for the first).
    ///
    /// Fails with 400 when `total` disagrees with the total an earlier part of this id gave.
    func begin(id: String, index: Int, total: Int64) -> Result<Int, TargetFailure> {
        uploads.withLock { uploads in
            var upload = uploads[id] ?? Upload(total: total)
            guard upload.total == total else {
                return .failure(.badRequest("total \(total) disagrees with \(upload.total) given by an earlier part of upload '\(id)'"))
            }
            let attempt = (upload.attempts[index] ?? 0) + 1
            upload.attempts[index] = attempt
            uploads[id] = upload
            return .success(attempt)
        }
    }

    /// A new temporary file path for part `index` of `id` (its directory created).
    func temporaryPath(id: String, index: Int) throws(TargetFailure) -> String {
        let dir = directory(id)
        guard mkdir(dir, 0o755) == 0 || errno == EEXIST else {
            throw TargetFailure(status: .internalServerError, message: "cannot create \(dir): \(String(cString: strerror(errno)))")
        }
        let n = sequence.wrappingAdd(1, ordering: .relaxed).newValue
        return "\(dir)/part-\(index).tmp\(n)"
    }

    /// Moves a fully received part into place and records it, replacing an earlier part with the same index.
    func record(id: String, index: Int, range: ContentRangeHeader, temporaryPath: String) -> Result<Void, TargetFailure> {
        uploads.withLock { uploads in
            guard var upload = uploads[id], upload.total == range.total else {
                unlink(temporaryPath)
                return .failure(.badRequest("total \(range.total) disagrees with an earlier part of upload '\(id)'"))
            }
            let path = "\(directory(id))/part-\(index)-\(range.first)-\(range.total)"
            guard rename(temporaryPath, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporaryPath)
                return .failure(TargetFailure(status: .internalServerError, message: "cannot store part \(index): \(reason)"))
            }
            if let earlier = upload.parts[index], earlier.path != path { unlink(earlier.path) }
            upload.parts[index] = Part(index: index, offset: range.first, length: range.length, path: path)
            upload.version += 1
            uploads[id] = upload
            return .success(())
        }
    }

    /// The `UploadStatus` answer of `GET /upload/{id}`, or nil for an unknown id.
    func listing(id: String) -> UploadStatus? {
        uploads.withLock { uploads in
            guard let upload = uploads[id] else { return nil }
            let parts = upload.parts.values.sorted { $0.index < $1.index }
            let covered = CoveredRanges(parts.map { $0.offset...($0.offset + $0.length - 1) })
            return UploadStatus(id: id, total: upload.total, ranges: covered.runs,
                                parts: parts.map { UploadStatus.Part(index: $0.index, offset: $0.offset, length: $0.length) })
        }
    }

    /// Counts a complete call of `id` and returns its number, 1 for the first; `Int.max` for an unknown id (not
    /// counted: it answers 404 whatever the faults).
    func completeCall(id: String) -> Int {
        uploads.withLock { uploads in
            guard uploads[id] != nil else { return .max }
            uploads[id]?.completeCalls += 1
            return uploads[id]?.completeCalls ?? 1
        }
    }

    /// What completing `id` takes now.
    func completion(id: String) -> Completion {
        uploads.withLock { uploads in
            guard let upload = uploads[id] else { return .unknown }
            if let done = upload.completed, done.version == upload.version { return .done(done.answer) }
            let parts = upload.parts.values.sorted { ($0.offset, $0.index) < ($1.offset, $1.index) }
            let missing = CoveredRanges(parts.map { $0.offset...($0.offset + $0.length - 1) }).missing(total: upload.total)
            guard missing.isEmpty else { return .missing(missing) }
            return .compute(version: upload.version, total: upload.total, parts: parts)
        }
    }

    /// Remembers the answer of a completion computed over `version` of the parts.
    func remember(id: String, version: Int, answer: CompleteAnswer) {
        uploads.withLock { uploads in
            if uploads[id]?.version == version { uploads[id]?.completed = (version, answer) }
        }
    }

    /// The SHA-256 of bytes `0..<total` read from the parts (sorted by offset, covering every byte) in order.
    static func assembledDigest(total: Int64, parts: [Part]) throws(DigestError) -> String {
        let digest = SHA256Digest()
        var position: Int64 = 0
        for part in parts where position < total {
            let end = min(part.offset + part.length, total)
            guard part.offset <= position, end > position else { continue }
            try digest.update(file: part.path, offset: position - part.offset, length: end - position)
            position = end
        }
        return digest.finalize()
    }
}
