import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server speaking the segment protocol for upload tests: the built `wirelens target` (WirelensTarget) in a
/// process of its own, or scripts/segment-peer.py for the two faults the target does not play (a complete call
/// failing in passing, a wrong assembled digest).
///
/// One process per test (each test picks its own failure rate and delay); stopped by `stop()` or at deinit.
public final class SegmentPeer: @unchecked Sendable {
    public let port: Int
    /// The address it listens on: 127.0.0.1, or the server's address of a `NetworkPath`.
    public let host: String
    private let pid: pid_t
    /// Where the peer keeps its parts.
    private let directory: String
    private var stopped = false

    /// Starts a peer failing `failParts` of part attempts with 503 (seeded), waiting `partDelayMs` before
    /// each answer and capping bodies at `rate` bytes/s per connection (0: no cap): the target server.
    /// The first `failComplete` complete calls of each upload are answered with 503, and with `wrongDigest`
    /// complete answers a SHA-256 that is not the assembled file's: the Python stand-in, for these two alone.
    /// `receiveBuffer` sets the target's kernel receive buffer (`--rcvbuf`, bytes; 0: its default). With a `path`,
    /// the target runs in the path's server namespace and listens on its address.
    public static func start(failParts: Double = 0, seed: Int = 1, partDelayMs: Int = 0, rate: Int = 0,
                             receiveBuffer: Int = 0, failComplete: Int = 0, wrongDigest: Bool = false,
                             in path: NetworkPath? = nil) throws -> SegmentPeer {
        try SegmentPeer(failParts: failParts, seed: seed, partDelayMs: partDelayMs, rate: rate, receiveBuffer: receiveBuffer,
                        failComplete: failComplete, wrongDigest: wrongDigest, path: path)
    }

    private init(failParts: Double, seed: Int, partDelayMs: Int, rate: Int, receiveBuffer: Int, failComplete: Int,
                 wrongDigest: Bool, path: NetworkPath?) throws {
        host = path?.serverIP ?? "127.0.0.1"
        let root = TestServers.repositoryRoot
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-segpeer-\(UUID().uuidString)").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wl-segpeer-\(UUID().uuidString).out").path
        let standIn = failComplete > 0 || wrongDigest
        if standIn, path != nil { throw TestServerError(message: "segment-peer.py runs on loopback only") }
        if standIn {
            pid = try ProcessRunner.spawn("/usr/bin/env", [
                "python3", root.appendingPathComponent("scripts/segment-peer.py").path, "--max-seconds", "300",
                "--fail-parts", String(failParts), "--fail-seed", String(seed), "--part-delay", String(partDelayMs),
                "--rate", String(rate), "--dir", directory, "--fail-complete", String(failComplete),
            ] + (wrongDigest ? ["--wrong-digest"] : []), stdoutPath: out, stderrPath: "/dev/null")
        } else {
            var flags = ["target", "--listen", "\(host):0", "--data-dir", directory]
            if failParts > 0 { flags += ["--fail-parts", String(failParts), "--fail-seed", String(seed)] }
            if partDelayMs > 0 { flags += ["--latency", "\(partDelayMs)ms"] }
            if rate > 0 { flags += ["--rate", "\(rate)/s"] }
            if receiveBuffer > 0 { flags += ["--rcvbuf", String(receiveBuffer)] }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if let path {
                pid = try path.spawn(in: path.serverNamespace, WirelensCLI.path, flags, stdoutPath: out, stderrPath: "/dev/null")
            } else {
                pid = try ProcessRunner.spawn(WirelensCLI.path, flags, stdoutPath: out, stderrPath: "/dev/null")
            }
        }
        // The stand-in's first line is PORT=<n>, the target's "listening on http://127.0.0.1:<n>".
        let found = ProcessRunner.announcedPort(in: out, seconds: 10)
        unlink(out)
        guard let found else {
            kill(pid, SIGKILL)
            throw TestServerError(message: "\(standIn ? "segment-peer.py" : "wirelens target") did not print its port within 10 s")
        }
        port = found
    }

    deinit { stop() }

    /// The base URL of upload `id`: parts go to `/part/{index}`, the end to `/complete`.
    public func uploadURL(_ id: String) -> String { "http://\(host):\(port)/upload/\(id)" }

    /// A URL on the peer that is not an upload (404 for any method).
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Stops the peer and deletes its parts. SIGKILL: a peer spawned from a test's worker thread inherits its
    /// blocked signal mask and would never see a SIGTERM.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: directory)
    }
}
