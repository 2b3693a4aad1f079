#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Writes a response body's chunks to its sink: nowhere, a file (opened at the first byte written), or memory up to
/// the sink's limit. One per transaction, next to the request's `BodyReader`.
struct ResponseWriter {
    let sink: ResponseSink
    private var fd: Int32 = -1
    /// The body kept by a memory sink; nil until a first chunk arrived.
    private(set) var body: ResponseBody?

    init(_ sink: ResponseSink) {
        self.sink = sink
    }

    /// Why a write failed, as one line naming the file.
    struct Failure: Error {
        let message: String
    }

    /// True when the sink keeps nothing (the body is only counted).
    var discards: Bool {
        if case .discard = sink { true } else { false }
    }

    /// Writes `count` bytes of the answer with status `status`. A resumed download's file takes only a 2xx answer,
    /// and a 206 is appended to it; other answers leave it alone.
    mutating func write(_ data: UnsafeRawPointer, count: Int, status: Int?) throws(Failure) {
        switch sink {
        case .discard:
            return
        case .memory(let limit):
            var kept = body ?? ResponseBody()
            body = nil
            let room = max(0, limit - kept.bytes.count)
            let n = min(room, count)
            if n > 0 { kept.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
            if n < count { kept.truncated = true }
            body = kept
        case .file(let path, let resume):
            // A resumed download keeps its file unless the answer carries the resource (a 416's text would replace it).
            if resume, let status, !(200..<300).contains(status) { return }
            if fd < 0 {
                let appends = resume && status == 206
                fd = open(path, O_WRONLY | O_CREAT | (appends ? O_APPEND : O_TRUNC), 0o644)
                if fd < 0 { throw Failure(message: "cannot write output file '\(path)': \(String(cString: strerror(errno)))") }
            }
            var written = 0
            while written < count {
                let n = Glibc.write(fd, data + written, count - written)
                if n <= 0 { throw Failure(message: "cannot write output file '\(path)': \(String(cString: strerror(errno)))") }
                written += n
            }
        }
    }

    /// Closes the file the writer opened, if any.
    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
