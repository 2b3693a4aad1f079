import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs programs for tests with posix_spawn and waitpid (Foundation's Process can hang in async tests on Linux).
public enum ProcessRunner {
    /// What a finished program left.
    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// True when the program ended by a signal (its number is in `status`).
        public var signaled: Bool
    }

    /// Runs `executable` with `arguments`; kills it after `timeout` seconds.
    ///
    /// - Parameter afterStart: called with the child's pid once it runs (to send it a signal, for example).
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                           afterStart: ((pid_t) -> Void)? = nil) throws -> Outcome {
        let tmp = FileManager.default.temporaryDirectory
        let outPath = tmp.appendingPathComponent("wl-out-\(UUID().uuidString)").path
        let errPath = tmp.appendingPathComponent("wl-err-\(UUID().uuidString)").path
        defer {
            unlink(outPath)
            unlink(errPath)
        }
        let pid = try spawn(executable, arguments, stdoutPath: outPath, stderrPath: errPath)
        afterStart?(pid)
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw TestServerError(message: "waitpid failed: \(errno)") }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(5_000)
        }
        let exited = (status & 0x7f) == 0
        let code = exited ? (status >> 8) & 0xff : status & 0x7f
        return Outcome(status: code,
                       stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                       stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                       signaled: !exited)
    }

    /// The port a spawned server prints on its first stdout line (`PORT=<n>`, or `listening on http://HOST:<n>`),
    /// read from the file its stdout goes to, polled every 25 ms at most `seconds` long; nil when none came.
    public static func announcedPort(in path: String, seconds: Double) -> Int? {
        for _ in 0..<max(1, Int(seconds * 40)) {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), let line = text.split(separator: "\n").first {
                if line.hasPrefix("PORT=") { return Int(line.dropFirst(5)) }
                if line.hasPrefix("listening on "), let colon = line.lastIndex(of: ":") {
                    return Int(line[line.index(after: colon)...])
                }
            }
            usleep(25_000)
        }
        return nil
    }

    /// Starts a program with stdin from /dev/null and stdout/stderr to the given files; returns its pid.
    public static func spawn(_ executable: String, _ arguments: [String], stdoutPath: String,
                             stderrPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw TestServerError(message: "cannot start \(executable): error \(rc)") }
        return pid
    }
}
