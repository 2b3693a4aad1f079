import Foundation
import WirelensTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An nginx of its own for the decryption tests: one TLS port per (protocol version, cipher) forced with
/// `ssl_protocols`, `ssl_ciphers` and `ssl_conf_command Ciphersuites`, each offering h2 and http/1.1, with the shared
/// test certificate (an ECDSA P-256 key, so the TLS 1.2 suites are the ECDSA ones).
struct TLSNginx: Sendable {
    /// One forced configuration and its port.
    struct Server: Sendable {
        let version: String
        /// The OpenSSL name given to nginx, and the IANA name the report must show.
        let openSSLName: String
        let ianaName: String
        var port = 0
    }

    static let forced: [Server] = [
        Server(version: "TLSv1.2", openSSLName: "ECDHE-ECDSA-AES128-GCM-SHA256",
               ianaName: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
        Server(version: "TLSv1.2", openSSLName: "ECDHE-ECDSA-AES256-GCM-SHA384",
               ianaName: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"),
        Server(version: "TLSv1.2", openSSLName: "ECDHE-ECDSA-CHACHA20-POLY1305",
               ianaName: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
        Server(version: "TLSv1.3", openSSLName: "TLS_AES_128_GCM_SHA256", ianaName: "TLS_AES_128_GCM_SHA256"),
        Server(version: "TLSv1.3", openSSLName: "TLS_AES_256_GCM_SHA384", ianaName: "TLS_AES_256_GCM_SHA384"),
        Server(version: "TLSv1.3", openSSLName: "TLS_CHACHA20_POLY1305_SHA256",
               ianaName: "TLS_CHACHA20_POLY1305_SHA256"),
        // A CBC suite: not decrypted, named in the report.
        Server(version: "TLSv1.2", openSSLName: "ECDHE-ECDSA-AES128-SHA", ianaName: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
    ]

    let directory: String
    let servers: [Server]

    /// The instance the tests share, started once (stopped at exit).
    static let shared: Result<TLSNginx, TestServerError> = {
        do {
            let nginx = try TLSNginx()
            atexit { if case .success(let n) = TLSNginx.shared { TLSNginx.stop(n.directory) } }
            return .success(nginx)
        } catch let error as TestServerError {
            return .failure(error)
        } catch {
            return .failure(TestServerError(message: "\(error)"))
        }
    }()

    private init() throws {
        let shared = try TestServers.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-tls-nginx-\(getpid())").path
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory + "/www", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
        try "hello wirelens".write(toFile: directory + "/www/small.txt", atomically: true, encoding: .utf8)
        // 200 KiB: long enough that four HTTP/2 responses overlap.
        var random = SplitMix64(seed: 17)
        let body = Data((0..<(200 * 1024)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try body.write(to: URL(fileURLWithPath: directory + "/www/200k.bin"))
        let cert = shared.certPath, key = shared.nginxDir + "/key.pem"
        for attempt in 0..<3 {
            var servers = Self.forced
            let ports = try Self.freePorts(servers.count)
            for i in servers.indices { servers[i].port = ports[i] }
            var conf = """
                daemon on; master_process on; worker_processes 1;
                pid \(directory)/nginx.pid; error_log \(directory)/error.log warn;
                events { worker_connections 1024; }
                http {
                    access_log off; client_body_temp_path \(directory)/tmp; keepalive_requests 1000;

                """
            for s in servers {
                let tls13 = s.version == "TLSv1.3"
                conf += """
                        server {
                            listen 127.0.0.1:\(s.port) ssl http2;
                            ssl_certificate \(cert); ssl_certificate_key \(key);
                            ssl_protocols \(s.version);
                            ssl_ciphers \(tls13 ? "HIGH" : s.openSSLName);
                            ssl_conf_command Ciphersuites \(tls13 ? s.openSSLName : "TLS_AES_128_GCM_SHA256");
                            root \(directory)/www;
                        }

                    """
            }
            conf += "}\n"
            try conf.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            let run = try ProcessRunner.run("/usr/sbin/nginx", ["-c", directory + "/nginx.conf", "-p", directory + "/",
                                                                 "-e", directory + "/error.log"], timeout: 20)
            if run.status == 0, Self.waitForPorts(servers) {
                self.servers = servers
                return
            }
            Self.stop(directory)
            if attempt == 2 { throw TestServerError(message: "nginx for the TLS tests did not start: \(run.stderr)") }
        }
        throw TestServerError(message: "nginx for the TLS tests did not start")
    }

    /// The same directory with other servers' ports (for the oracle, which tells clients from servers by port).
    init(copying other: TLSNginx, ports: [Int]) {
        directory = other.directory
        servers = ports.map { var s = Server(version: "", openSSLName: "", ianaName: ""); s.port = $0; return s }
    }

    /// The server forced to `ianaName`.
    func server(_ ianaName: String) -> Server? { servers.first { $0.ianaName == ianaName } }

    func url(_ server: Server, _ path: String) -> String { "https://localhost:\(server.port)\(path)" }

    private static func waitForPorts(_ servers: [Server]) -> Bool {
        for _ in 0..<100 {
            if servers.allSatisfy({ Self.accepts($0.port) }) { return true }
            usleep(50_000)
        }
        return false
    }

    /// Stops the nginx of `directory` (waiting at most 2 s for it to exit) and removes the directory.
    static func stop(_ directory: String) {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let text = try? String(contentsOfFile: directory + "/nginx.pid", encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, SIGQUIT)
        for _ in 0..<40 where kill(pid, 0) == 0 { usleep(50_000) }
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// `count` distinct free ports on 127.0.0.1 (bound to 0 and released).
    private static func freePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestServerError(message: "socket failed") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw TestServerError(message: "bind failed") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
