import Foundation
import MultipartKit
import NIOCore
import WirelensDigest
import WirelensWire

/// Streams a multipart/form-data body through MultipartKit's parser and keeps, per part, its name, filename,
/// content type, size and SHA-256; no part is buffered.
final class MultipartDigest {
    /// One finished part.
    struct Part: Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var size: Int64
        var sha256: String

        var json: JSONValue {
            .object([.init("name", .string(name)), .init("filename", .optional(filename)),
                     .init("contentType", .optional(contentType)), .init("size", .int(size)),
                     .init("sha256", .string(sha256))])
        }
    }

    private let parser: MultipartParser
    private let closeDelimiter: [UInt8]
    private var tail: [UInt8] = []
    private var sawClose = false
    private var headers: [(String, String)] = []
    private var size: Int64 = 0
    private var digest = SHA256Digest()
    private var inPart = false
    private(set) var parts: [Part] = []
    /// The first problem found; once set, later bytes are ignored.
    private(set) var failure: String?

    /// A parser for the body of `Content-Type: multipart/form-data; boundary=...`.
    init(boundary: String) {
        parser = MultipartParser(boundary: boundary)
        closeDelimiter = Array("--\(boundary)--".utf8)
        parser.onHeader = { [unowned self] name, value in
            inPart = true
            headers.append((name, value))
        }
        parser.onBody = { [unowned self] buffer in
            inPart = true
            size += Int64(buffer.readableBytes)
            buffer.withUnsafeReadableBytes { digest.update($0) }
        }
        parser.onPartComplete = { [unowned self] in finishPart() }
    }

    /// The boundary of a multipart/form-data Content-Type, nil when it is another type, or a 400 when the
    /// boundary is missing or invalid.
    static func boundary(contentType: String?) -> Result<String?, TargetFailure> {
        guard let contentType, let parsed = HeaderParameters.parse(contentType),
              parsed.value == "multipart/form-data" else { return .success(nil) }
        guard let boundary = parsed.parameters["boundary"], (1...70).contains(boundary.utf8.count) else {
            return .failure(.badRequest("multipart/form-data without a boundary of 1 to 70 characters"))
        }
        return .success(boundary)
    }

    /// Feeds the next bytes of the body.
    func feed(_ buffer: ByteBuffer) {
        guard failure == nil else { return }
        watchForClose(buffer)
        do {
            try parser.execute(buffer)
        } catch {
            failure = "malformed multipart body near part \(parts.count + 1)"
        }
    }

    /// The parts once the whole body was fed, or why the body is not a complete multipart body.
    func finish() -> Result<[Part], TargetFailure> {
        if let failure { return .failure(.badRequest(failure)) }
        guard sawClose, !inPart, !parts.isEmpty else {
            return .failure(.badRequest("malformed multipart body: it ends before its closing boundary"))
        }
        return .success(parts)
    }

    /// Notes whether the close delimiter `--boundary--` occurs in the stream, across chunk edges.
    private func watchForClose(_ buffer: ByteBuffer) {
        guard !sawClose else { return }
        let keep = closeDelimiter.count - 1
        buffer.withUnsafeReadableBytes { bytes in
            // Where a previous chunk ended mid-delimiter: search the joint, then the chunk itself.
            let joint = tail + bytes.prefix(keep)
            sawClose = joint.withUnsafeBytes { Self.contains($0, closeDelimiter) } || Self.contains(bytes, closeDelimiter)
            tail = Array((tail + bytes.suffix(keep)).suffix(keep))
        }
    }

    /// True when `needle` (not empty) occurs in `haystack`: memchr for its first byte, memcmp for the rest.
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else { return false }
        var start = 0
        let lastStart = haystack.count - needle.count
        return needle.withUnsafeBytes { n in
            guard let needleBase = n.baseAddress else { return false }
            while start <= lastStart {
                guard let hit = memchr(base + start, Int32(first), lastStart - start + 1) else { return false }
                let at = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + at, needleBase, needle.count) == 0 { return true }
                start = at + 1
            }
            return false
        }
    }

    private func finishPart() {
        defer {
            headers = []
            size = 0
            digest = SHA256Digest()
            inPart = false
        }
        guard failure == nil else { return }
        let disposition = headers.last { $0.0.lowercased() == "content-disposition" }.flatMap { HeaderParameters.parse($0.1) }
        guard let disposition, disposition.value == "form-data", let name = disposition.parameters["name"] else {
            failure = "malformed multipart body: part \(parts.count + 1) has no 'Content-Disposition: form-data; name=...'"
            return
        }
        let contentType = headers.last { $0.0.lowercased() == "content-type" }?.1
        parts.append(Part(name: name, filename: disposition.parameters["filename"], contentType: contentType,
                          size: size, sha256: digest.finalize()))
    }
}
