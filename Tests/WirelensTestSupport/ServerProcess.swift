import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one way tests start and stop a child process (a server such as `wirelens serve`, `wirelens target`, the
/// Python peers, or a command run to its end through `ProcessRunner.run`): stdout and stderr to fresh temporary
/// files, bounded waits for a line it prints and for its exit, and SIGKILL plus reaping when released if it still
/// runs.
public final class ServerProcess {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private var reaped = false
    /// How the child ended, once reaped: its `waitpid` status.
    private var waitStatus: Int32 = 0

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout and stderr to fresh temporary files.
    public init(_ executable: String, _ arguments: [String]) throws {
        let tmp = FileManager.default.temporaryDirectory
        stdoutPath = tmp.appendingPathComponent("wl-server-\(UUID().uuidString).out").path
        stderrPath = tmp.appendingPathComponent("wl-server-\(UUID().uuidString).err").path
        pid = try ProcessRunner.spawn(executable, arguments, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    deinit {
        kill()
        unlink(stdoutPath)
        unlink(stderrPath)
    }

    /// What the child wrote to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What the child wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits (polling every 25 ms, at most `seconds`) until stdout or stderr holds `prefix`; returns the rest of its
    /// line, or nil when it did not come.
    public func waitForText(after prefix: String, seconds: Double) -> String? {
        for _ in 0..<max(1, Int(seconds * 40)) {
            for text in [stderr, stdout] {
                if let range = text.range(of: prefix) {
                    return String(text[range.upperBound...].prefix { $0 != "\n" })
                }
            }
            usleep(25_000)
        }
        return nil
    }

    /// The port in the first `http://HOST:PORT` the child printed (waits at most `seconds`).
    public func announcedPort(host: String = "127.0.0.1", seconds: Double = 20) -> Int? {
        waitForText(after: "http://\(host):", seconds: seconds).flatMap { Int($0.prefix { $0.isNumber }) }
    }

    /// The announced port (`announcedPort`), or, when none came within `seconds`, the child killed and an error
    /// naming `server` with what it said on stderr.
    public func listeningPort(of server: String, host: String = "127.0.0.1", seconds: Double) throws -> Int {
        guard let found = announcedPort(host: host, seconds: seconds) else {
            let said = stderr
            kill()
            throw TestServerError(message: "\(server) did not listen within \(Int(seconds)) s: \(said)")
        }
        return found
    }

    /// The ports of the first `count` stdout lines of the form `NAME=<port>` (the Python peers print `PORT=<n>`,
    /// then `PORT2=<n>`, ...), waiting at most `seconds`; nil when fewer came.
    public func announcedPorts(count: Int, seconds: Double = 10) -> [Int]? {
        for _ in 0..<max(1, Int(seconds * 40)) {
            let ports = stdout.split(separator: "\n").compactMap { line in
                line.split(separator: "=", maxSplits: 1).last.flatMap { Int($0) }
            }
            if ports.count >= count { return Array(ports.prefix(count)) }
            usleep(25_000)
        }
        return nil
    }

    /// The port of the first `PORT=<n>` stdout line (`announcedPorts`), or, when none came within `seconds`, the child
    /// killed and an error naming `server` with what it said on stderr.
    public func announcedPort(of server: String, seconds: Double = 10) throws -> Int {
        guard let found = announcedPorts(count: 1, seconds: seconds)?.first else {
            let said = stderr
            kill()
            throw TestServerError(message: "\(server) did not listen within \(Int(seconds)) s: \(said)")
        }
        return found
    }

    /// Waits (polling every 5 ms, at most `seconds`) for the child to exit; its exit code, or -signal when a
    /// signal ended it, or nil when it still runs after `seconds` (it is left running).
    public func waitForExit(seconds: Double) -> Int32? {
        if !reaped {
            var status: Int32 = 0
            for _ in 0..<max(1, Int(seconds * 200)) {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid || (r < 0 && errno != EINTR) {
                    reaped = true
                    waitStatus = status
                    break
                }
                usleep(5_000)
            }
        }
        guard reaped else { return nil }
        return (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : -(waitStatus & 0x7f)
    }

    /// Sends `signal` and waits (at most `seconds`) for the exit; nil when it had to be killed after that.
    public func stop(signal: Int32 = SIGTERM, seconds: Double = 20) -> Int32? {
        guard !reaped else { return waitForExit(seconds: 0) }
        Glibc.kill(pid, signal)
        if let code = waitForExit(seconds: seconds) { return code }
        kill()
        return nil
    }

    /// SIGKILL and reap, if it still runs. A child spawned from a test's worker thread inherits its blocked signal
    /// mask and may never see a SIGTERM; SIGKILL cannot be blocked.
    public func kill() {
        guard !reaped else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        waitStatus = status
    }
}
