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

    /// Runs `executable` with `arguments` to its end (a `ServerProcess`); kills it after `timeout` seconds.
    ///
    /// - Parameter afterStart: called with the child's pid once it runs (to send it a signal, for example).
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                           afterStart: ((pid_t) -> Void)? = nil) throws -> Outcome {
        let child = try ServerProcess(executable, arguments)
        afterStart?(child.pid)
        let code = child.waitForExit(seconds: timeout) ?? {
            child.kill()
            return child.waitForExit(seconds: 0) ?? -SIGKILL
        }()
        return Outcome(status: code < 0 ? -code : code, stdout: child.stdout, stderr: child.stderr, signaled: code < 0)
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
