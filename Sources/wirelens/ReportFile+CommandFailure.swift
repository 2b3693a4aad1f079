import Foundation
import WirelensReport

extension ReportFile {
    /// Checks, before the work that fills a report starts, that `path` can take it (`checkWritable`): a path that
    /// cannot is one line and exit 3.
    static func checkReport(_ path: String) throws(CommandFailure) {
        do {
            try checkWritable(path)
        } catch {
            throw CommandFailure(.localFile, "cannot write report '\(path)': \(error)")
        }
    }

    /// Writes a command's output to standard output; a failure (a full disk, a closed pipe's EPIPE) is one line
    /// and exit 3 rather than Foundation's trap in `FileHandle.write`.
    static func writeStandardOutput(_ bytes: [UInt8]) throws(CommandFailure) {
        guard writeAll(bytes, to: STDOUT_FILENO) else {
            throw CommandFailure(.localFile, "cannot write to stdout: \(WriteError.fromErrno())")
        }
    }
}
