import Foundation

/// scripts/s3-fault-proxy.py in front of a loopback S3 server (moto): an HTTP relay that answers the first UploadPart
/// of chosen part numbers itself with an S3 error (`503 SlowDown`, `403 AccessDenied`…) and logs every request it
/// sees, so that a test can check a client's retries and give-ups against what reached the wire. Without faults it is
/// a logging relay in front of any HTTP/1.1 server (the segment peer too).
public final class S3FaultProxy {
    /// One request as the relay saw it: when (monotonic seconds: its head's arrival, or for an answered one when the
    /// answer went out), on which of its connections, the method and target, and the status the relay answered
    /// (nil: passed on to the server).
    public struct Request: Decodable, Sendable {
        public var t: Double
        public var connection: Int
        public var method: String
        public var target: String
        public var answered: Int?

        /// The `partNumber` of an UploadPart (a PUT with an uploadId), else nil.
        public var partNumber: Int? {
            guard method == "PUT", let query = URLComponents(string: "http://relay" + target)?.queryItems,
                  query.contains(where: { $0.name == "uploadId" }) else { return nil }
            return query.first { $0.name == "partNumber" }?.value.flatMap { Int($0) }
        }

        /// The `uploadId` of a request of a multipart upload, else nil.
        public var uploadId: String? {
            URLComponents(string: "http://relay" + target)?.queryItems?.first { $0.name == "uploadId" }?.value
        }

        /// True for a CompleteMultipartUpload (a POST with an uploadId).
        public var isComplete: Bool {
            method == "POST" && uploadId != nil
        }
    }

    /// The part number that stands for the CompleteMultipartUpload in a fault.
    public static let complete = 0

    public let port: Int
    /// The relay's log of requests (JSON lines).
    public let logPath: String
    private let process: ServerProcess

    /// Starts the relay to `127.0.0.1:upstream`, logging to `logPath`; each fault is a part to answer with an error
    /// the first time it is sent: its number (`complete`: the CompleteMultipartUpload), the HTTP status and S3's error
    /// code; no faults: a relay that only logs. Throws when the relay does not announce its port within 10 s.
    public init(upstream: Int, faults: [(part: Int, status: Int, code: String)], logPath: String) throws {
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/s3-fault-proxy.py").path
        self.logPath = logPath
        process = try ServerProcess("/usr/bin/python3", [script, "--upstream", "\(upstream)", "--log", logPath]
                                    + faults.flatMap { ["--fault", "\($0.part):\($0.status):\($0.code)"] })
        port = try process.announcedPort(of: "s3-fault-proxy.py")
    }

    deinit {
        process.kill()
    }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The requests logged so far, in the order they were logged.
    public func requests() throws -> [Request] {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Request.self, from: Data($0.utf8)) }
    }
}
