import Foundation
import WirelensCore

/// The TLS key log of a probe run with a live capture of HTTPS: where libcurl writes its secrets so that the
/// capture can be decrypted, and whether the file is removed after the analysis.
///
/// libcurl 7.88's OpenSSL backend reads `SSLKEYLOGFILE` once, in `curl_global_init` (`Curl_tls_keylog_open`), opens
/// the file for appending, line-buffered, and writes the secrets of every TLS connection of the process to it. So
/// the variable is set here, before the probe's first libcurl call, to a file this process created with mode 0600
/// (libcurl's fopen would make it 0666 less the umask) in a private directory (0700); it is deleted after the
/// analysis unless `--keylog FILE` names where to keep it. A `SSLKEYLOGFILE` the user set already is used as it
/// is, and kept. The key log never goes into a report.
struct CaptureKeyLog {
    /// The file libcurl writes.
    let path: String
    /// The private directory to remove with the file; nil when the file is kept.
    let temporaryDirectory: String?

    /// Prepares the key log of a run: `keep` is `--keylog FILE`; nil when no URL is HTTPS. Call before libcurl
    /// is initialised.
    static func prepare(keep: String?, urls: [String]) throws(CommandFailure) -> CaptureKeyLog? {
        guard urls.contains(where: { $0.lowercased().hasPrefix("https://") }) || keep != nil else { return nil }
        if let keep {
            let fd = open(keep, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw CommandFailure(.localFile, "cannot write key log '\(keep)': \(String(cString: strerror(errno))); "
                    + "give a writable file for --keylog")
            }
            close(fd)
            setenv("SSLKEYLOGFILE", keep, 1)
            return CaptureKeyLog(path: keep, temporaryDirectory: nil)
        }
        if let given = ProcessInfo.processInfo.environment["SSLKEYLOGFILE"], !given.isEmpty {
            return CaptureKeyLog(path: given, temporaryDirectory: nil)
        }
        var template = Array((NSTemporaryDirectory() + "/wirelens-keys.XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        guard let directory = made else {
            throw CommandFailure(.localFile, "cannot create a private directory for the TLS key log: "
                + "\(String(cString: strerror(errno))); set TMPDIR to a writable directory")
        }
        let path = directory + "/keys.log"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            rmdir(directory)
            throw CommandFailure(.localFile, "cannot create the TLS key log in '\(directory)': "
                + "\(String(cString: strerror(errno)))")
        }
        close(fd)
        setenv("SSLKEYLOGFILE", path, 1)
        return CaptureKeyLog(path: path, temporaryDirectory: directory)
    }

    /// Removes a temporary key log and its directory (a kept one stays).
    func remove() {
        guard let temporaryDirectory else { return }
        unlink(path)
        rmdir(temporaryDirectory)
    }
}
