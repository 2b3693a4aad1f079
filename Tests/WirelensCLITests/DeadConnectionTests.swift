import Foundation
import WirelensTestSupport
import XCTest

/// A keep-alive connection the server closes (FIN) or resets (RST) just as libcurl reuses it: libcurl writes the
/// request on the dead connection and resends it on a fresh one. Every request that went on the wire is its own
/// transaction, checked against the server's own log of what it read on which connection (scripts/dying-keepalive.py).
final class DeadConnectionTests: XCTestCase {
    /// How long the server holds the second request of a connection before it kills the connection (ms).
    private static let holdMs = 300.0

    func testAConnectionClosedUnderItsSecondRequestIsItsOwnTransaction() throws {
        try checkDeadConnections(mode: "close")
    }

    func testAConnectionResetUnderItsSecondRequestIsItsOwnTransaction() throws {
        try checkDeadConnections(mode: "reset")
    }

    /// Three tasks one after the other: the first opens a connection, the second reuses it and it dies (resent on a
    /// new one), the third reuses that one and it dies too.
    private func checkDeadConnections(mode: String) throws {
        let log = CLIHarness.temporaryPath("dying.jsonl")
        let report = CLIHarness.temporaryPath("dying.json")
        defer {
            unlink(log)
            unlink(report)
        }
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/dying-keepalive.py").path
        let server = try ServerProcess("/usr/bin/env", ["python3", script, "--mode", mode, "--log", log,
                                                        "--hold-ms", "\(Self.holdMs)", "--max-seconds", "60"])
        let port = try XCTUnwrap(server.announcedPorts(count: 1, seconds: 10)?.first, "no port: \(server.stderr)")
        let run = try CLIHarness.run(["probe", "--repeat", "3", "--concurrency", "1", "--format", "json",
                                      "--report", report, "-q", "http://127.0.0.1:\(port)/dying"])
        XCTAssertEqual(run.status, 0, run.stderr)
        server.kill()

        // The server's account: every request it read, in order, with the client port it came from.
        let wire = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(wire.count, 5, "answered, died + answered, died + answered: \(wire)")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            as? [String: Any])
        let tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        XCTAssertEqual(tasks.count, 3)
        let transactions = tasks.flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(transactions.count, wire.count, "one transaction per request on the wire")
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        XCTAssertEqual(summary["transactions"] as? Int, wire.count)

        var idByPort: [Int: Int] = [:]
        for (full, read) in zip(transactions, wire) {
            let tx = full.filter { !["tcp", "diagnosis", "curlTimersUs", "offsetsMs"].contains($0.key) }
            let port = try XCTUnwrap(read["port"] as? Int)
            let died = read["action"] as? String != "answered"
            XCTAssertEqual(tx["localPort"] as? Int, port, "the server read this request from that port: \(tx)")
            XCTAssertEqual(tx["reusedConnection"] as? Bool, read["request"] as? Int == 2,
                           "reused exactly when it was the connection's second request: \(tx)")
            let id = try XCTUnwrap(tx["connectionId"] as? Int)
            if let known = idByPort[port] { XCTAssertEqual(id, known, "one connection, one id") }
            XCTAssertFalse(idByPort.contains { $0.key != port && $0.value == id }, "two connections, one id")
            idByPort[port] = id
            let phases = try XCTUnwrap(tx["phasesMs"] as? [String: Any])
            // No connection limit: nothing waits for a slot, so no queue beyond libcurl's own bookkeeping (far less
            // than the time the server held the dead request).
            XCTAssertLessThan(try XCTUnwrap(phases["queue"] as? Double), Self.holdMs / 3, "queue: \(tx)")
            if died {
                let error = try XCTUnwrap(tx["error"] as? [String: Any], "the dead attempt failed: \(tx)")
                XCTAssertEqual(error["class"] as? String, "network")
                XCTAssertTrue((error["message"] as? String ?? "").contains("connection died"), "\(error)")
                XCTAssertTrue(tx["statusCode"] is NSNull, "\(tx)")
                // The client saw the request go out and the connection die no sooner than the server let it.
                XCTAssertGreaterThanOrEqual(try XCTUnwrap(phases["total"] as? Double),
                                            try XCTUnwrap(read["heldMs"] as? Double) - 1, "\(tx)")
                XCTAssertNotNil(tx["connectionClosedAt"] as? String, "\(tx)")
            } else {
                XCTAssertEqual(tx["statusCode"] as? Int, 200, "\(tx)")
                XCTAssertTrue(tx["error"] is NSNull, "\(tx)")
            }
        }
        XCTAssertEqual(idByPort.count, 3)
        for task in tasks.dropFirst() {
            let kinds = (task["transactions"] as? [[String: Any]] ?? []).map { $0["kind"] as? String }
            XCTAssertEqual(kinds, ["initial", "retry"], "the resend follows the dead attempt: \(task)")
            XCTAssertEqual(task["retries"] as? Int, 1)
            XCTAssertEqual(task["statusCode"] as? Int, 200)
            XCTAssertTrue(task["error"] is NSNull, "the task succeeded: \(task)")
        }
        let connections = try XCTUnwrap(summary["connections"] as? [String: Any])
        XCTAssertEqual(connections["opened"] as? Int, 3)
        XCTAssertEqual(connections["reused"] as? Int, 2)
        XCTAssertEqual(connections["distinct"] as? Int, 3)
        XCTAssertEqual(connections["maxOpenAtOnce"] as? Int, 1, "each connection died before the next opened")
        try CLIHarness.assertValid(report, schema: "report.schema.json")
    }
}
