import CFileShim
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
    final class Destination {
        private let fd: Int32
        /// The temporary file and the path it is renamed to; nil when written directly.
        private let rename: (temporary: String, path: String)?
        private var isOpen = true
        /// Whether the temporary file replaces a regular file: then it is written out as it is written (`pace`), a
        /// step at a time.
        private let paced: Bool
        /// Bytes written; of them, those sent on their way to the device, and those written out and let go of.
        private var written: Int64 = 0
        private var sent: Int64 = 0
        private var released: Int64 = 0
        /// How much is sent to the device at once.
        static let writebackStep: Int64 = 8 << 20

        /// Opens `path` for a report: a temporary file beside it, or `path` itself when it exists and is not a
        /// regular file (renaming over /dev/null, /dev/stdout or a FIFO would replace it with a regular file).
        init(path: String) throws {
            var status = stat()
            let exists = stat(path, &status) == 0
            if exists, status.st_mode & S_IFMT != S_IFREG {
                fd = open(path, O_WRONLY)
                rename = nil
                paced = false
            } else {
                let temporary = path + ".tmp-\(getpid())"
                fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                rename = (temporary, path)
                paced = exists
            }
            guard fd >= 0 else { throw WriteError.fromErrno() }
        }

        /// Standard output, which is left open.
        static func standardOutput() -> Destination { Destination(descriptor: STDOUT_FILENO) }

        private init(descriptor: Int32) {
            fd = descriptor
            rename = nil
            isOpen = false
            paced = false
        }

        /// Writes every byte; throws a `WriteError` on failure.
        func write(_ bytes: [UInt8]) throws {
            guard writeAll(bytes, to: fd) else { throw WriteError.fromErrno() }
            written += Int64(bytes.count)
            if paced, written - sent >= Self.writebackStep { pace() }
        }

        /// Sends the step just written to the device without waiting, then waits until the step before it (sent
        /// one step earlier) is written out and lets its pages go.
        ///
        /// A rename over an existing file makes ext4 write the whole new file out there and then (its
        /// `auto_da_alloc`, so that a crash leaves the old report or the new one, never an empty file): a JSON
        /// report of a gigabyte capture, some 300 MB, held the rename for 0.13 s, and its 75 000 dirty pages, fresh
        /// ones each, cost 0.1 to 0.7 s of system time on a busy machine. Paced, the report reaches the device
        /// while the analysis goes on, the same few megabytes of pages serve all of it, and the rename has nothing
        /// left to write (what is left of it is freeing the old file). The writing waits only when the device is
        /// slower than the analysis. A report that replaces nothing is left to the kernel's own write-out, later
        /// and off the analysis's time. A file system without these calls changes nothing (they are hints).
        private func pace() {
            _ = wl_start_writeback(fd, sent, written - sent)
            if sent > released { _ = wl_release_written(fd, released, sent - released) }
            released = sent
            sent = written
        }

        /// Closes the file and renames it into place.
        func commit() throws {
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
        func discard() {
            if isOpen {
                isOpen = false
                close(fd)
            }
            if let rename { unlink(rename.temporary) }
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
