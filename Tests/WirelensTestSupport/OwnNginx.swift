import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An nginx of a test's own, for what the shared one (`TestServers`) is not configured for: server blocks the test
/// writes (its `ssl_protocols`, for example), each on a free port of 127.0.0.1, serving `/small.txt`, with the shared
/// test certificate and an access log of the client's address, the TLS version, the request and its Cookie header, one line each.
/// Stopped when released.
public final class OwnNginx {
    /// One server block: TLS with the shared certificate or clear text, and the directives it adds.
    public struct Server: Sendable {
        public var tls: Bool
        public var directives: String

        public init(tls: Bool, directives: String = "") {
            self.tls = tls
            self.directives = directives
        }
    }

    /// What nginx logged of one request.
    public struct LogLine: Sendable, Equatable {
        /// `$remote_addr`: the address the client's socket was bound to.
        public var remoteAddress: String
        /// `$ssl_protocol` ("TLSv1.2"; "-" in clear text).
        public var tlsProtocol: String
        /// `$request_uri`.
        public var uri: String
        /// `$http_cookie`: the Cookie header the request carried ("-" without one).
        public var cookie: String = "-"
    }

    public let directory: String
    /// Each server's port, in the order given.
    public let ports: [Int]
    /// The shared test certificate, for a client's `--cacert`.
    public let certPath: String

    /// Starts nginx with `servers`; throws when it did not answer on every port within 5 s.
    public init(_ servers: [Server]) throws {
        let shared = try TestServers.get()
        certPath = shared.certPath
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-own-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        try "hello wirelens".write(toFile: directory + "/www/small.txt", atomically: true, encoding: .utf8)
        // Free ports: the kernel picks them for listeners released just before nginx binds them.
        ports = try (0..<servers.count).map { _ in try LoopbackSocket.listener() }.map(\.port)
        var conf = """
            daemon on; master_process on; worker_processes 1;
            pid \(directory)/nginx.pid; error_log \(directory)/error.log warn;
            events { worker_connections 64; }
            http {
                log_format probe '$remote_addr $ssl_protocol $request_uri $http_cookie';
                access_log \(directory)/access.log probe;
                client_body_temp_path \(directory)/tmp;

            """
        for (server, port) in zip(servers, ports) {
            let listen = server.tls ? "listen 127.0.0.1:\(port) ssl http2;" : "listen 127.0.0.1:\(port);"
            let tls = server.tls ? "ssl_certificate \(shared.certPath); ssl_certificate_key \(shared.nginxDir)/key.pem;" : ""
            conf += "    server { \(listen) \(tls) \(server.directives) root \(directory)/www; }\n"
        }
        conf += "}\n"
        try conf.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let run = try ProcessRunner.run("/usr/sbin/nginx", ["-c", directory + "/nginx.conf", "-p", directory + "/",
                                                             "-e", directory + "/error.log"], timeout: 20)
        guard run.status == 0, Self.answers(ports) else {
            stop()
            throw TestServerError(message: "the test's nginx did not start: \(run.stderr)")
        }
    }

    deinit { stop() }

    /// The URL of `path` on the server at `index` (`https://localhost` for a TLS one: the certificate's name).
    public func url(_ index: Int, _ path: String, tls: Bool) -> String {
        tls ? "https://localhost:\(ports[index])\(path)" : "http://127.0.0.1:\(ports[index])\(path)"
    }

    /// The logged requests whose URI is `uri`, waiting (at most 2 s) for at least one: nginx writes a line as the
    /// request ends, which may be just after the client has read the answer.
    public func logged(_ uri: String) -> [LogLine] {
        for _ in 0..<40 {
            let text = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").compactMap { line -> LogLine? in
                // The cookie, last, may hold spaces.
                let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard fields.count == 4, fields[2] == uri else { return nil }
                return LogLine(remoteAddress: fields[0], tlsProtocol: fields[1], uri: fields[2], cookie: fields[3])
            }
            if !lines.isEmpty { return lines }
            usleep(50_000)
        }
        return []
    }

    /// True when every port accepts a connection within 5 s.
    private static func answers(_ ports: [Int]) -> Bool {
        for _ in 0..<100 {
            if ports.allSatisfy({ (try? LoopbackSocket.connect(port: $0)) != nil }) { return true }
            usleep(50_000)
        }
        return false
    }

    /// Stops nginx (SIGQUIT, waiting at most 2 s) and removes its directory.
    private func stop() {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let text = try? String(contentsOfFile: directory + "/nginx.pid", encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<40 where kill(pid, 0) == 0 { usleep(50_000) }
    }
}
