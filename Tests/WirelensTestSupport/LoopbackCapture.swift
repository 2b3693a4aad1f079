import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Records traffic with tcpdump (on loopback, or an interface of a test's network namespace) while a test's client runs, with bounded waits throughout.
public enum LoopbackCapture {
    /// Why a capture could not be made.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// A fresh temporary path ending in `name`.
    public static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wl-cap-\(UUID().uuidString)-\(name)").path
    }

    /// Runs tcpdump on `interface` with `filter`, calls `body` once tcpdump listens, then stops tcpdump with
    /// SIGINT and returns the file's path.
    ///
    /// - Parameter options: extra tcpdump options (`-s 96`, `-y LINUX_SLL`, `--nano`).
    /// - Parameter namespace: a network namespace to capture in (`ip netns exec`, which becomes tcpdump itself).
    public static func record(interface: String = "lo", filter: String, options: [String] = [], namespace: String? = nil,
                       during body: () throws -> Void) throws -> String {
        let path = temporaryPath("capture.pcap")
        let errPath = path + ".err"
        defer { unlink(errPath) }
        // Immediate mode: without it packets wait in the kernel ring for up to a second and SIGINT loses them.
        var arguments = ["-i", interface, "-n", "-U", "--immediate-mode", "-B", "32768", "-w", path] + options + [filter]
        var executable = "/usr/bin/tcpdump"
        if let namespace {
            arguments = ["netns", "exec", namespace, executable] + arguments
            executable = "/usr/sbin/ip"
        }
        let pid = try ProcessRunner.spawn(executable, arguments, stdoutPath: "/dev/null", stderrPath: errPath)
        var stopped = false
        defer { if !stopped { stop(pid) } }
        // tcpdump says "listening on" once its socket is set up (about half a second); wait for it, bounded.
        var listening = false
        for _ in 0..<200 where !listening {
            let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            if text.contains("listening on") {
                listening = true
            } else {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    stopped = true
                    throw Failure(description: "tcpdump exited: \(text)")
                }
                usleep(25_000)
            }
        }
        guard listening else { throw Failure(description: "tcpdump did not start listening within 5 s") }
        try body()
        usleep(200_000)  // the last FIN/ACKs
        stopped = true
        let status = stop(pid)
        let text = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw Failure(description: "tcpdump ended with \(status): \(text)") }
        if let dropped = text.split(separator: "\n").first(where: { $0.contains("dropped by kernel") }),
           !dropped.hasPrefix("0 ") {
            throw Failure(description: "tcpdump's kernel buffer dropped packets: \(dropped)")
        }
        return path
    }

    /// Sends SIGINT and waits up to 5 s for the exit (then SIGKILL); returns the exit status.
    @discardableResult
    private static func stop(_ pid: pid_t) -> Int32 {
        kill(pid, SIGINT)
        var status: Int32 = 0
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { return (status >> 8) & 0xff }
            usleep(25_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return -1
    }

    /// Runs curl with `arguments`, failing the capture when curl fails.
    public static func curl(_ arguments: [String]) throws {
        let outcome = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "20"] + arguments, timeout: 30)
        guard outcome.status == 0 else { throw Failure(description: "curl failed (\(outcome.status)): \(outcome.stderr)") }
    }

    /// Runs a Python snippet, failing the capture when it fails.
    public static func python(_ code: String, _ arguments: [String]) throws {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", code] + arguments, timeout: 30)
        guard outcome.status == 0 else { throw Failure(description: "python failed: \(outcome.stderr)") }
    }
}
