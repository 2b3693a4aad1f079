import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// scripts/redirect-peer.py started for one test: listeners that answer `/redirect?to=URL` with a 302 and record
/// the headers every `/record/...` request brought, the independent witness of what a redirect hop carried.
public final class RedirectPeer {
    /// The ports of the listeners, in the order they were asked for.
    public let ports: [Int]
    private let process: ServerProcess
    private let logPath: String

    /// One request that reached `/record`, or (`connection` true) one connection accepted.
    public struct Record: Decodable {
        /// `HOST:PORT` of the listener that got it.
        public var listener: String
        public var connection: Bool?
        public var method: String?
        public var path: String?
        /// The headers as received, `[name, value]` in order (nil for a connection).
        public var headers: [[String]]?
        /// The request body's length and SHA-256 (hex), as received.
        public var bodyLength: Int?
        public var bodySHA256: String?
        /// For `/text/N`: the body's bytes as written (gzip-encoded when asked) and the encoding.
        public var sentBodyLength: Int?
        public var encoding: String?

        /// The values of the headers of that name (case-insensitive).
        public func values(_ name: String) -> [String] {
            (headers ?? []).filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }

        /// The lowercased names of the headers received.
        public var names: Set<String> { Set((headers ?? []).compactMap { $0.first?.lowercased() }) }
    }

    /// Starts the listeners (`HOST` or `HOST@PORT`, IPv6 without brackets); throws when they do not come up in 5 s.
    public init(listen: [String]) throws {
        logPath = WirelensCLI.temporaryPath("redirect-peer.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/redirect-peer.py").path
        process = try ServerProcess("/usr/bin/env", ["python3", script, "--log", logPath, "--max-seconds", "300"]
                                    + listen.flatMap { ["--listen", $0] })
        guard let found = process.announcedPorts(count: listen.count, seconds: 5) else {
            process.kill()
            throw TestServerError(message: "redirect-peer.py did not print its \(listen.count) ports within 5 s")
        }
        ports = found
    }

    deinit {
        process.kill()
        unlink(logPath)
    }

    /// The requests and connections recorded so far, oldest first.
    public func records() throws -> [Record] {
        try Self.records(inLog: String(contentsOfFile: logPath, encoding: .utf8))
    }

    /// The records of a log's text (the script's --log file).
    public static func records(inLog text: String) throws -> [Record] {
        try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// The `/text/N` answers written so far, oldest first.
    public func textAnswers() throws -> [Record] {
        try records().filter { $0.path?.hasPrefix("/text/") == true }
    }

    /// `http://HOST:PORT/PATH` on listener `index`.
    public func url(_ path: String, host: String = "127.0.0.1", index: Int = 0) -> String {
        "http://\(host):\(ports[index])\(path)"
    }

    /// The requests recorded for `/record/<tag>`.
    public func records(tag: String) throws -> [Record] {
        try records().filter { $0.path == "/record/\(tag)" }
    }

    /// `http://HOST:PORT/redirect?to=TARGET` (TARGET percent-encoded) on `host` and listener `index`.
    public func redirect(host: String = "127.0.0.1", index: Int = 0, to target: String, status: Int = 302) -> String {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return "http://\(host):\(ports[index])/redirect?to=\(encoded)&status=\(status)"
    }
}
