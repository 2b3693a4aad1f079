import Foundation

/// Writes reports: to a file atomically (a reader never sees half a report), or to a descriptor.
package enum ReportFile {
    /// A write failure with the system's reason.
    package struct WriteError: Error, CustomStringConvertible {
        package let description: String

        /// The error of the system call that just failed.
        package static func fromErrno() -> WriteError {
            WriteError(description: String(cString: strerror(errno)))
        }
    }

    /// Checks, before the work that fills a report starts, that `path` can take it: opens (creates) the file the
    /// report would be written to and lets it go again, so that a directory that is missing, read-only or refuses
    /// new files fails at once, whoever runs it (`access(2)` says yes to root on a read-only file system). A FIFO
    /// is only checked for write permission: opening it would block for a reader, or hand that reader an EOF.
    /// The error's description is the reason, for the caller's one line.
    package static func checkWritable(_ path: String) throws(WriteError) {
        func failure(_ reason: String) -> WriteError { WriteError(description: reason) }
        var status = stat()
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw failure("is a directory")
            case S_IFIFO:
                guard access(path, W_OK) == 0 else { throw failure(WriteError.fromErrno().description) }
                return
            default: break
            }
        }
        do {
            try Destination(path: path).discard()
        } catch let error as WriteError {
            throw error
        } catch {
            throw failure("\(error)")
        }
    }

    /// Writes what `produce` emits, piece by piece, to a temporary file beside `path`, then renames it over
    /// `path` (a device or a pipe is written to directly). A `WriteError` is the file's; any other error is
    /// `produce`'s, and leaves no file behind.
    package static func write(to path: String, _ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void) throws {
        let destination = try Destination(path: path)
        do {
            try produce(destination.write)
            try destination.commit()
        } catch {
            destination.discard()
            throw error
        }
    }

    /// Where a report's bytes go while it is written: a temporary file beside the report's path, renamed over it
    /// by `commit()` (a reader never sees half a report), or a device, a pipe or standard output written directly.
    package final class Destination {
        private let fd: Int32
        /// The temporary file and the path it is renamed to; nil when written directly.
        private let rename: (temporary: String, path: String)?
        private var isOpen = true

        /// Opens `path` for a report: a temporary file beside it, or `path` itself when it exists and is not a
        /// regular file (renaming over /dev/null, /dev/stdout or a FIFO would replace it with a regular file).
        package init(path: String) throws {
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
                fd = open(path, O_WRONLY)
                rename = nil
            } else {
                let temporary = path + ".tmp-\(getpid())"
                fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                rename = (temporary, path)
            }
            guard fd >= 0 else { throw WriteError.fromErrno() }
        }

        /// Standard output, which is left open.
        package static func standardOutput() -> Destination { Destination(descriptor: STDOUT_FILENO) }

        private init(descriptor: Int32) {
            fd = descriptor
            rename = nil
            isOpen = false
        }

        /// Writes every byte; throws a `WriteError` on failure.
        package func write(_ bytes: [UInt8]) throws {
            guard writeAll(bytes, to: fd) else { throw WriteError.fromErrno() }
        }

        /// Closes the file and renames it into place.
        package func commit() throws {
            if isOpen {
                isOpen = false  // closed exactly once, even when close itself fails
                guard close(fd) == 0 else { throw WriteError.fromErrno() }
            }
            guard let rename else { return }
            guard Foundation.rename(rename.temporary, rename.path) == 0 else {
                let reason = WriteError.fromErrno()
                unlink(rename.temporary)
                throw reason
            }
        }

        /// Closes the file and removes the temporary one: no report is left behind.
        package func discard() {
            if isOpen {
                isOpen = false
                close(fd)
            }
            if let rename { unlink(rename.temporary) }
        }
    }

    /// Writes every byte to `fd`, retrying short writes; false on an error.
    @discardableResult
    package static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
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
