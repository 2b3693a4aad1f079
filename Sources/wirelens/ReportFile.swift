import Foundation

/// Writes reports: to a file atomically (a reader never sees half a report), or to a descriptor.
enum ReportFile {
    /// A write failure with the system's reason.
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `bytes` to a temporary file beside `path`, then renames it over `path`.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw WriteError(description: String(cString: strerror(errno))) }
        let complete = writeAll(bytes, to: fd)
        let reason = String(cString: strerror(errno))
        close(fd)
        guard complete, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw WriteError(description: reason)
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
