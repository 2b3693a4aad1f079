import Foundation

/// The loopback servers the integration tests share: nginx from Debian (started by scripts/nginx-up.sh), the built
/// `wirelens target` (delays, statuses, flaky answers: its routes and query faults) and scripts/slowpeer.py for
/// what neither gives (an h2c Upgrade, malformed HTTP, Python's own parsers as witnesses, an ignored Expect).
///
/// Started once per test process, stopped when it exits.
public final class TestServers: @unchecked Sendable {
    public let httpPort: Int
    public let httpsPort: Int
    public let h2cPort: Int
    public let peerPort: Int
    public var targetPort: Int { target.port }
    public let certPath: String
    public let nginxDir: String
    private let peer: ServerProcess
    private let target: SegmentPeer

    /// The servers, started on first use; nil with a message when they could not start.
    public static let shared: Result<TestServers, TestServerError> = {
        do {
            let servers = try TestServers()
            atexit { TestServers.stopShared() }
            return .success(servers)
        } catch let error as TestServerError {
            return .failure(error)
        } catch {
            return .failure(TestServerError(message: "\(error)"))
        }
    }()

    /// The servers, or a thrown error that fails the calling test with the reason.
    public static func get() throws -> TestServers {
        try shared.get()
    }

    private static func stopShared() {
        if case .success(let servers) = shared { servers.stop() }
    }

    /// The repository root, found from this file's path.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private init() throws {
        let root = Self.repositoryRoot
        nginxDir = FileManager.default.temporaryDirectory
            .appendingPathComponent("wirelens-tests-\(getpid())").path
        let up = try Self.runScript(root.appendingPathComponent("scripts/nginx-up.sh").path, [nginxDir])
        var values: [String: String] = [:]
        for line in up.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let http = values["HTTP_PORT"].flatMap(Int.init), let https = values["HTTPS_PORT"].flatMap(Int.init),
              let h2c = values["H2C_PORT"].flatMap(Int.init), let cert = values["CERT"] else {
            throw TestServerError(message: "nginx-up.sh printed no ports: \(up)")
        }
        httpPort = http
        httpsPort = https
        h2cPort = h2c
        certPath = cert

        // The peer outlives the whole test run (one bundle process runs every suite, over 15 minutes now), bounded
        // so that a leaked one ends by itself: at 900 s it exited mid-run and the Probe suite's later tests found no
        // peer ("Couldn't connect to server").
        peer = try ServerProcess("/usr/bin/env", [
            "python3", root.appendingPathComponent("scripts/slowpeer.py").path, "--max-seconds", "3600", "--no-stdin-watch",
        ])
        // The first line is PORT=<n>; wait for it, bounded.
        guard let port = peer.announcedPorts(count: 1, seconds: 5)?.first else {
            peer.kill()
            throw TestServerError(message: "slowpeer.py did not print its port within 5 s")
        }
        peerPort = port

        do {
            target = try SegmentPeer.start()
        } catch {
            peer.kill()
            throw error
        }
    }

    private func stop() {
        _ = peer.stop(signal: SIGTERM, seconds: 5)
        target.stop()
        _ = try? Self.runScript(Self.repositoryRoot.appendingPathComponent("scripts/nginx-down.sh").path, [nginxDir])
    }

    /// Runs a shell script and returns its stdout; throws with its stderr when it fails.
    @discardableResult
    public static func runScript(_ path: String, _ arguments: [String]) throws -> String {
        let result = try ProcessRunner.run("/bin/bash", [path] + arguments, timeout: 60)
        guard result.status == 0 else {
            throw TestServerError(message: "\(path) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    public func http(_ path: String) -> String { "http://127.0.0.1:\(httpPort)\(path)" }
    public func https(_ path: String) -> String { "https://localhost:\(httpsPort)\(path)" }
    public func h2c(_ path: String) -> String { "http://127.0.0.1:\(h2cPort)\(path)" }
    public func peer(_ path: String) -> String { "http://127.0.0.1:\(peerPort)\(path)" }
    public func target(_ path: String) -> String { target.url(path) }

    /// The directory nginx's upload location writes PUT bodies into.
    public var uploadRoot: String { nginxDir }
}

/// Why the test servers could not start.
public struct TestServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
