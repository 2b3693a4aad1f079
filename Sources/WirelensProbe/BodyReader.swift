#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads a request body's bytes at any offset from its source: the generated pattern, a file, a file range or
/// assembled pieces. Files are opened on first read and read with pread, never loaded whole. A pipe is read in order
/// only, and cannot go back; while its writer has nothing, the engine's loop waits with it (every transfer of the
/// run: a pipe body makes a run of one task), until bytes come, the run is cancelled or the idle timeout passes.
struct BodyReader {
    let source: BodySource
    private var fd: Int32 = -1
    private var openPath: String?
    /// How far a pipe has been read.
    private var pipeOffset: Int64 = 0
    /// Ends a wait for the pipe's writer when the run is cancelled.
    var stop: PipeStop?
    /// The longest wait for the pipe's next bytes (µs, the run's idle timeout); nil: as long as the writer takes.
    var waitLimit: Int64?
    /// How often a wait for the pipe looks at `stop` (ms).
    static let pipeLookMillis: Int32 = 100

    init(_ source: BodySource) {
        self.source = source
    }

    /// Why a read failed, as one line naming the file.
    struct Failure: Error {
        let message: String
    }

    /// Copies up to `count` bytes from body offset `offset` into `buffer`; returns how many (0 at the end).
    mutating func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(Failure) -> Int {
        let want = Int(min(Int64(count), max(0, source.size - offset)))
        guard want > 0 else { return 0 }
        switch source {
        case .none:
            return 0
        case .generated:
            PatternBytes.fill(UnsafeMutableRawBufferPointer(start: buffer, count: want), offset: offset)
            return want
        case .file(let path, _):
            return try readFile(path, into: buffer, count: want, at: offset)
        case .fileRange(let path, let start, _):
            return try readFile(path, into: buffer, count: want, at: start + offset)
        case .pipe(let path, _):
            return try readPipe(path, into: buffer, count: want, at: offset)
        case .pieces(let body):
            guard let index = body.pieceIndex(at: offset) else { return 0 }
            let within = offset - body.starts[index]
            switch body.pieces[index] {
            case .bytes(let bytes):
                let n = min(want, bytes.count - Int(within))
                bytes.withUnsafeBytes { source in
                    buffer.copyMemory(from: source.baseAddress! + Int(within), byteCount: n)
                }
                return n
            case .file(let path, let start, let length):
                return try readFile(path, into: buffer, count: Int(min(Int64(want), length - within)), at: start + within)
            }
        }
    }

    /// Closes the file the reader opened, if any.
    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        openPath = nil
    }

    /// The pipe's next bytes; `offset` must be where the previous read ended (a pipe cannot go back).
    private mutating func readPipe(_ path: String, into buffer: UnsafeMutableRawPointer, count: Int,
                                   at offset: Int64) throws(Failure) -> Int {
        if openPath != path {
            guard offset == 0 else { throw Failure(message: "upload pipe '\(path)' cannot go back to byte \(offset)") }
            // Opened without waiting for a writer (a FIFO's open would block until one comes); the wait is
            // `waitForPipe`'s, which a cancel ends. Reads block again once there are bytes.
            fd = open(path, O_RDONLY | O_NONBLOCK)
            guard fd >= 0 else {
                throw Failure(message: "cannot read upload pipe '\(path)': \(String(cString: strerror(errno)))")
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            openPath = path
            pipeOffset = 0
        }
        guard offset == pipeOffset else {
            throw Failure(message: "upload pipe '\(path)' cannot go back to byte \(offset) (at \(pipeOffset))")
        }
        try waitForPipe(path)
        var n = Glibc.read(fd, buffer, count)
        while n < 0 && errno == EINTR { n = Glibc.read(fd, buffer, count) }
        guard n >= 0 else {
            throw Failure(message: "cannot read upload pipe '\(path)': \(String(cString: strerror(errno)))")
        }
        guard n > 0 else {
            throw Failure(message: "upload pipe '\(path)' ended after \(offset) of \(source.size) bytes (--upload-size)")
        }
        pipeOffset += Int64(n)
        return n
    }

    /// Waits until the pipe has bytes or its writer is gone, looking at `stop` every `pipeLookMillis` and giving up
    /// after `waitLimit`.
    private func waitForPipe(_ path: String) throws(Failure) {
        let start = MonotonicClock.now()
        while true {
            var look = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&look, 1, Self.pipeLookMillis)
            if ready > 0 { return }
            if ready < 0, errno != EINTR {
                throw Failure(message: "cannot wait for upload pipe '\(path)': \(String(cString: strerror(errno)))")
            }
            if stop?.isRaised == true { throw Failure(message: "cancelled while waiting for upload pipe '\(path)'") }
            if let limit = waitLimit, (MonotonicClock.now() - start) / 1000 >= limit {
                throw Failure(message: "upload pipe '\(path)' gave no bytes for \(limit / 1000) ms (--idle-timeout)")
            }
        }
    }

    private mutating func readFile(_ path: String, into buffer: UnsafeMutableRawPointer, count: Int,
                                   at offset: Int64) throws(Failure) -> Int {
        if openPath != path {
            close()
            fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                throw Failure(message: "cannot read upload file '\(path)': \(String(cString: strerror(errno)))")
            }
            openPath = path
        }
        var n = pread(fd, buffer, count, off_t(offset))
        while n < 0 && errno == EINTR { n = pread(fd, buffer, count, off_t(offset)) }
        guard n >= 0 else {
            throw Failure(message: "cannot read upload file '\(path)': \(String(cString: strerror(errno)))")
        }
        guard n > 0 else { throw Failure(message: "upload file '\(path)' shrank while it was being sent") }
        return n
    }
}
