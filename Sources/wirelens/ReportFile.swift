import Foundation

/// Writes reports: to a file atomically (a reader never sees half a report), or to a descriptor.
enum ReportFile {
    /// A write failure with the system's reason.
    struct WriteError: Error, CustomStringConvertible {
        let description: String

        /// The error of the system call that just failed.
        static func fromErrno() -> WriteError {
            WriteError(description: String(cString: strerror(errno)))
        }
    }

    /// Writes what `produce` emits, piece by piece, to a temporary file beside `path`, then renames it over
    /// `path` (a device or a pipe is written to directly). A `WriteError` is the file's; any other error is
    /// `produce`'s, and leaves no file behind.
    static func write(to path: String, _ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void) throws {
        // A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written to directly: renaming over it would
        // replace it with a regular file.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            try writeDirectly(to: path, produce)
            return
        }
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw WriteError.fromErrno() }
        var isOpen = true
        do {
            try run(produce, writingTo: fd)
            isOpen = false  // closed exactly once, even when close itself fails
            guard close(fd) == 0 else { throw WriteError.fromErrno() }
        } catch {
            if isOpen { close(fd) }
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(description: reason)
        }
    }

    /// Writes what `produce` emits straight to `path`, which exists and is not a regular file.
    private static func writeDirectly(to path: String,
                                      _ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void) throws {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw WriteError.fromErrno() }
        defer { close(fd) }
        try run(produce, writingTo: fd)
    }

    /// Runs `produce`, writing each piece it emits to `fd`; a failed write throws a `WriteError`.
    private static func run(_ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void,
                            writingTo fd: Int32) throws {
        try produce { piece in
            guard writeAll(piece, to: fd) else { throw WriteError.fromErrno() }
        }
    }

    /// Writes every byte to `fd`, retrying short writes; false on an error.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }
}
