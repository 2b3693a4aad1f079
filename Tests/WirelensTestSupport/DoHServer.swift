import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// scripts/doh-server.py started for one test: a DNS-over-HTTPS server (RFC 8484, GET and POST) on 127.0.0.1 over
/// TLS, whose log of the queries it answered is the independent witness of what the client resolved through it.
public final class DoHServer {
    public let port: Int
    /// The certificate it presents (CN=localhost, SAN 127.0.0.1): a client trusts it with `--cacert certPath`.
    public let certPath: String
    private let process: ServerProcess
    private let logPath: String
    private let directory: String

    /// One line of the server's log: a query it answered, or (`connection` true) a TLS connection it accepted.
    public struct Record: Decodable {
        public var connection: Bool?
        public var name: String?
        /// "A", "AAAA", or the type's number.
        public var type: String?
        /// "GET" or "POST".
        public var method: String?
        public var rcode: Int?
        public var answers: [String]?
        /// The server's wall clock (s since the epoch) when the query came and when the answer went.
        public var receivedAt: Double?
        public var sentAt: Double?
    }

    /// Starts the server with a certificate of its own (made by openssl, as scripts/nginx-up.sh makes nginx's),
    /// answers held back `delayMillis`; throws when it does not come up in 10 s.
    /// `records` (`NAME=ADDRESS`): the names it knows instead of its own (wirelens.test and a.wirelens.test).
    public init(delayMillis: Int = 0, records: [String] = []) throws {
        directory = WirelensCLI.temporaryPath("doh")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certPath = directory + "/cert.pem"
        let made = try ProcessRunner.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", directory + "/key.pem", "-out", certPath, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
        ], timeout: 30)
        guard made.status == 0 else { throw TestServerError(message: "openssl req failed: \(made.stderr)") }
        logPath = directory + "/doh.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/doh-server.py").path
        process = try ServerProcess("/usr/bin/env", [
            "python3", script, "--cert", certPath, "--key", directory + "/key.pem", "--log", logPath,
            "--delay-ms", String(delayMillis), "--max-seconds", "300",
        ] + records.flatMap { ["--record", $0] })
        guard let found = process.announcedPorts(count: 1, seconds: 10)?.first else {
            process.kill()
            throw TestServerError(message: "doh-server.py did not print its port within 10 s: \(process.stderr)")
        }
        port = found
    }

    deinit {
        process.kill()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The server's RFC 8484 endpoint.
    public var url: String { "https://127.0.0.1:\(port)/dns-query" }

    /// The queries answered so far, oldest first (connections left out).
    public func queries() throws -> [Record] {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
            .filter { $0.connection != true }
    }
}
