import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built `wirelens target` (WirelensTarget) as a process of its own, on loopback or in a `NetworkPath`'s
/// server namespace: the segment protocol for upload tests, and (one shared instance, `TestServers.target`)
/// delays, statuses and flaky answers for the others. The in-process server has its own harness for the
/// target's own tests (WirelensTargetTests' TargetHarness).
///
/// One process per upload test (each picks its own failure rate and delay); stopped by `stop()` or when released.
public final class SegmentPeer {
    public let port: Int
    /// The address it listens on: 127.0.0.1, or the server's address of a `NetworkPath`.
    public let host: String
    private let process: ServerProcess
    /// Where the peer keeps its parts.
    private let directory: String
    /// The target's query faults every upload URL carries (`fail_complete`, `wrong_digest`), or "".
    private let query: String

    /// Starts a target failing `failParts` of part attempts with 503 (seeded), waiting `partDelayMs` before
    /// each answer and capping bodies at `rate` bytes/s per connection (0: no cap). The first `failComplete`
    /// complete calls of each upload are answered with 503, and with `wrongDigest` the complete call answers a
    /// SHA-256 that is not the assembled file's (the target's `fail_complete` and `wrong_digest` faults, carried
    /// by `uploadURL`'s query). `receiveBuffer` sets the target's kernel receive buffer (`--rcvbuf`, bytes; 0: its
    /// default). With a `path`, the target runs in the path's server namespace and listens on its address.
    public static func start(failParts: Double = 0, seed: Int = 1, partDelayMs: Int = 0, rate: Int = 0,
                             receiveBuffer: Int = 0, failComplete: Int = 0, wrongDigest: Bool = false,
                             in path: NetworkPath? = nil) throws -> SegmentPeer {
        try SegmentPeer(failParts: failParts, seed: seed, partDelayMs: partDelayMs, rate: rate, receiveBuffer: receiveBuffer,
                        failComplete: failComplete, wrongDigest: wrongDigest, path: path)
    }

    private init(failParts: Double, seed: Int, partDelayMs: Int, rate: Int, receiveBuffer: Int, failComplete: Int,
                 wrongDigest: Bool, path: NetworkPath?) throws {
        host = path?.serverIP ?? "127.0.0.1"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-segpeer-\(UUID().uuidString)").path
        var faults: [String] = []
        if failComplete > 0 { faults.append("fail_complete=\(failComplete)") }
        if wrongDigest { faults.append("wrong_digest=1") }
        query = faults.isEmpty ? "" : "?" + faults.joined(separator: "&")
        var flags = ["target", "--listen", "\(host):0", "--data-dir", directory]
        if failParts > 0 { flags += ["--fail-parts", String(failParts), "--fail-seed", String(seed)] }
        if partDelayMs > 0 { flags += ["--latency", "\(partDelayMs)ms"] }
        if rate > 0 { flags += ["--rate", "\(rate)/s"] }
        if receiveBuffer > 0 { flags += ["--rcvbuf", String(receiveBuffer)] }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        process = try path.map { try $0.process(in: $0.serverNamespace, WirelensCLI.path, flags) }
            ?? ServerProcess(WirelensCLI.path, flags)
        guard let found = process.announcedPort(host: host, seconds: 10) else {
            process.kill()
            try? FileManager.default.removeItem(atPath: directory)
            throw TestServerError(message: "wirelens target did not print its port within 10 s: \(process.stderr)")
        }
        port = found
    }

    deinit { stop() }

    /// The base URL of upload `id`: parts go to `/part/{index}`, the end to `/complete` (with the peer's faults).
    public func uploadURL(_ id: String) -> String { "http://\(host):\(port)/upload/\(id)\(query)" }

    /// A URL on the peer that is not an upload (404 for any method).
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Stops the peer and deletes its parts.
    public func stop() {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
