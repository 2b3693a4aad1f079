import Foundation

/// scripts/throttle-proxy.py in front of a loopback server: a TCP relay that passes what each client connection
/// sends at most `bytesPerSecond`, and the server's answers as they come, so that a test can catch an upload to a
/// fast local server (moto) mid-way.
public final class ThrottleProxy {
    public let port: Int
    private let process: ServerProcess

    /// Starts the relay to `127.0.0.1:upstream`; throws when it does not announce its port within 10 s.
    public init(upstream: Int, bytesPerSecond: Int) throws {
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/throttle-proxy.py").path
        process = try ServerProcess("/usr/bin/python3", [script, "--upstream", "\(upstream)",
                                                         "--rate", "\(bytesPerSecond)"])
        port = try process.announcedPort(of: "throttle-proxy.py")
    }

    deinit {
        process.kill()
    }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }
}
