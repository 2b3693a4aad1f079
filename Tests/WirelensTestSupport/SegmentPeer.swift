import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server speaking the segment protocol for upload tests: scripts/segment-peer.py, a stand-in for the
/// Wirelens target until WirelensTarget lands on main (then `start` becomes `TargetServer.start(...)`).
///
/// One process per test (each test picks its own failure rate and delay); stopped by `stop()` or when the
/// test process exits (the peer watches its parent).
public final class SegmentPeer: @unchecked Sendable {
    public let port: Int
    private let pid: pid_t
    /// Where the peer keeps its parts.
    private let directory: String
    private var stopped = false

    /// Starts a peer failing `failParts` of part attempts with 503 (seeded), waiting `partDelayMs` before
    /// each part's answer and reading bodies at `rate` bytes/s (0: at once).
    /// The first `failComplete` complete calls of each upload are answered with 503.
    /// With `wrongDigest`, complete answers a SHA-256 that is not the assembled file's.
    public static func start(failParts: Double = 0, seed: Int = 1, partDelayMs: Int = 0, rate: Int = 0,
                             failComplete: Int = 0, wrongDigest: Bool = false) throws -> SegmentPeer {
        try SegmentPeer(failParts: failParts, seed: seed, partDelayMs: partDelayMs, rate: rate, failComplete: failComplete,
                        wrongDigest: wrongDigest)
    }

    private init(failParts: Double, seed: Int, partDelayMs: Int, rate: Int, failComplete: Int, wrongDigest: Bool) throws {
        let root = TestServers.repositoryRoot
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-segpeer-\(UUID().uuidString)").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wl-segpeer-\(UUID().uuidString).out").path
        pid = try ProcessRunner.spawn("/usr/bin/env", [
            "python3", root.appendingPathComponent("scripts/segment-peer.py").path, "--max-seconds", "300",
            "--fail-parts", String(failParts), "--fail-seed", String(seed), "--part-delay", String(partDelayMs),
            "--rate", String(rate), "--dir", directory, "--fail-complete", String(failComplete),
        ] + (wrongDigest ? ["--wrong-digest"] : []), stdoutPath: out, stderrPath: "/dev/null")
        var found: Int?
        for _ in 0..<200 where found == nil {
            if let text = try? String(contentsOfFile: out, encoding: .utf8), let line = text.split(separator: "\n").first,
               line.hasPrefix("PORT=") {
                found = Int(line.dropFirst(5))
            } else {
                usleep(25_000)
            }
        }
        unlink(out)
        guard let found else {
            kill(pid, SIGKILL)
            throw TestServerError(message: "segment-peer.py did not print its port within 5 s")
        }
        port = found
    }

    deinit { stop() }

    /// The base URL of upload `id`: parts go to `/part/{index}`, the end to `/complete`.
    public func uploadURL(_ id: String) -> String { "http://127.0.0.1:\(port)/upload/\(id)" }

    /// A URL on the peer that is not an upload (404 for any method).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

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
