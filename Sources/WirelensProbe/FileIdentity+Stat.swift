import Foundation
import WirelensCore

extension FileIdentity {
    /// The identity of the regular file at `path` (stat); a missing or unreadable file is a local-file error.
    package static func read(_ path: String) throws(ProbeError) -> FileIdentity {
        let size = try ProbePlan.readableFileSize(path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ProbeError.localFile(path: path, reason: String(cString: strerror(errno)))
        }
        let nanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: size, modifiedNanos: nanos)
    }
}
