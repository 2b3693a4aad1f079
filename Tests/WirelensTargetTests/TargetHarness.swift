import Foundation
import WirelensTarget
import WirelensTestSupport
import XCTest

/// A target server started in-process for one test, with curl, sha256sum and Python as independent clients.
struct TargetHarness {
    let server: TargetServer
    let scratch: String

    /// Starts a server on a free loopback port with `configure` applied.
    static func start(_ configure: (inout TargetConfig) -> Void = { _ in }) async throws -> TargetHarness {
        var config = TargetConfig()
        configure(&config)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("wl-target-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        return TargetHarness(server: try await TargetServer.start(config), scratch: scratch)
    }

    /// Runs `body` with a server started with `configure` applied, and stops the server whatever happens.
    static func with(_ configure: (inout TargetConfig) -> Void = { _ in },
                     _ body: (TargetHarness) async throws -> Void) async throws {
        let target = try await start(configure)
        do {
            try await body(target)
        } catch {
            try? await target.stop()
            throw error
        }
        try await target.stop()
    }

    func stop() async throws {
        try await server.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func url(_ path: String) -> String { server.baseURL + path }

    /// A path in this test's scratch directory.
    func path(_ name: String) -> String { scratch + "/" + name }

    /// Runs curl (silent, errors shown) with `arguments`.
    func curl(_ arguments: [String], timeout: TimeInterval = 30) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("/usr/bin/curl", ["-sS"] + arguments, timeout: timeout)
    }

    /// The HTTP status and the body curl received for `arguments` (body to a file, status from -w).
    func fetch(_ arguments: [String], output: String? = nil) throws -> (status: Int, body: Data, outcome: ProcessRunner.Outcome) {
        let out = output ?? path("body-\(UUID().uuidString)")
        let outcome = try curl(["-o", out, "-w", "%{http_code}"] + arguments)
        let body = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
        return (Int(outcome.stdout) ?? -1, body, outcome)
    }

    /// The JSON object a request answered, with its status.
    func json(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> (status: Int, object: [String: Any]) {
        let (status, body, outcome) = try fetch(arguments)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (status, try XCTUnwrap(object, "not a JSON object: \(String(decoding: body, as: UTF8.self)) \(outcome.stderr)",
                                      file: file, line: line))
    }

    /// The SHA-256 of a file by coreutils' sha256sum (an oracle independent of the server's digest).
    static func sha256sum(_ path: String) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/sha256sum", [path], timeout: 30)
        return String(outcome.stdout.prefix(64))
    }

    /// Runs a Python 3 script with arguments and returns its stdout without the trailing newline.
    static func python(_ script: String, _ arguments: [String] = []) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script] + arguments, timeout: 30)
        guard outcome.status == 0 else { throw TestServerError(message: "python failed: \(outcome.stderr)") }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `count` random bytes to a new file in the scratch directory.
    func randomFile(_ name: String, count: Int) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

