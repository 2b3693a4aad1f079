#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads a request body's bytes at any offset from its source: the generated pattern, a file, a file range or
/// assembled pieces. Files are opened on first read and read with pread, never loaded whole. A pipe is read in order
/// only (`read` blocks until its writer gives bytes: the engine waits with it), and cannot go back.
struct BodyReader {
    let source: BodySource
    private var fd: Int32 = -1
    private var openPath: String?
    /// How far a pipe has been read.
    private var pipeOffset: Int64 = 0

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
            fd = open(path, O_RDONLY)
            guard fd >= 0 else {
                throw Failure(message: "cannot read upload pipe '\(path)': \(String(cString: strerror(errno)))")
            }
            openPath = path
            pipeOffset = 0
        }
        guard offset == pipeOffset else {
            throw Failure(message: "upload pipe '\(path)' cannot go back to byte \(offset) (at \(pipeOffset))")
        }
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
