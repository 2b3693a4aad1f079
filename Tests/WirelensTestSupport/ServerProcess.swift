import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A long-running child a test starts (`wirelens serve`, `wirelens target`): its output files, a bounded wait for a
/// line it prints, and a bounded wait for its exit. Killed and reaped when released, if still running.
public final class ServerProcess {
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private var reaped = false

    /// Starts `executable` with `arguments`, stdout and stderr to fresh temporary files.
    public init(_ executable: String, _ arguments: [String]) throws {
        let tmp = FileManager.default.temporaryDirectory
        stdoutPath = tmp.appendingPathComponent("wl-server-\(UUID().uuidString).out").path
        stderrPath = tmp.appendingPathComponent("wl-server-\(UUID().uuidString).err").path
        pid = try ProcessRunner.spawn(executable, arguments, stdoutPath: stdoutPath, stderrPath: stderrPath)
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            _ = waitpid(pid, nil, 0)
        }
        unlink(stdoutPath)
        unlink(stderrPath)
    }

    /// What the child wrote to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What the child wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits (polling every 50 ms, at most `seconds`) until stdout or stderr holds `prefix`; returns the rest of its
    /// line, or nil when it did not come.
    public func waitForText(after prefix: String, seconds: Double) -> String? {
        for _ in 0..<max(1, Int(seconds * 20)) {
            for text in [stderr, stdout] {
                if let range = text.range(of: prefix) {
                    return String(text[range.upperBound...].prefix { $0 != "\n" })
                }
            }
            usleep(50_000)
        }
        return nil
    }

    /// The port in the first `http://HOST:PORT` the child printed (waits at most `seconds`).
    public func announcedPort(host: String = "127.0.0.1", seconds: Double = 20) -> Int? {
        waitForText(after: "http://\(host):", seconds: seconds).flatMap { Int($0.prefix { $0.isNumber }) }
    }

    /// Waits (polling every 20 ms, at most `seconds`) for the child to exit; its exit code, or -signal when a
    /// signal ended it, or nil when it still runs after `seconds` (it is left running).
    public func waitForExit(seconds: Double) -> Int32? {
        guard !reaped else { return nil }
        var status: Int32 = 0
        for _ in 0..<max(1, Int(seconds * 50)) {
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
            }
            usleep(20_000)
        }
        return nil
    }

    /// Sends `signal` and waits (at most `seconds`) for the exit; nil when it had to be killed after that.
    public func stop(signal: Int32 = SIGTERM, seconds: Double = 20) -> Int32? {
        kill(pid, signal)
        if let code = waitForExit(seconds: seconds) { return code }
        kill(pid, SIGKILL)
        _ = waitpid(pid, nil, 0)
        reaped = true
        return nil
    }
}
