import Foundation

/// httpbin (Debian's python3-httpbin) under gunicorn on a free loopback port, for one test class: a third-party
/// server that echoes what it was sent (method, headers, body, form, files) and answers redirects, auth, cookies,
/// encodings, chunked streams, ranges, large headers and slow answers as it does for everyone.
///
/// Configured by scripts/httpbin-gunicorn.py, which also ends the server when the test process goes away.
public final class HttpbinServer {
    public let port: Int
    private let process: ServerProcess

    /// Starts gunicorn; throws when it does not listen within 20 s (python3-httpbin or gunicorn missing: see
    /// scripts/deps.sh).
    public init() throws {
        let gunicorn = "/usr/bin/gunicorn"
        guard FileManager.default.isExecutableFile(atPath: gunicorn) else {
            throw TestServerError(message: "\(gunicorn) is missing: run scripts/deps.sh (gunicorn, python3-httpbin)")
        }
        let config = TestServers.repositoryRoot.appendingPathComponent("scripts/httpbin-gunicorn.py").path
        process = try ServerProcess(gunicorn, ["-c", config, "httpbin:app"])
        port = try process.listeningPort(of: "httpbin under gunicorn", seconds: 20)
    }

    deinit {
        process.kill()
    }

    /// `http://127.0.0.1:PORT/PATH`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
