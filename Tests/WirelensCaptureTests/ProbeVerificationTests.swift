import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `capture analyze --probe`: a probe run captured on loopback agrees with its own report, and a report whose
/// claims were altered is caught.
final class ProbeVerificationTests: XCTestCase {
    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wirelens").path
    }

    private func wirelens(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(binary, arguments, timeout: 60)
    }

    /// Runs the probe with `arguments` under tcpdump; returns the capture and the probe's JSON report.
    private func capturedProbe(_ arguments: [String]) throws -> (capture: String, report: String) {
        let servers = try TestServers.get()
        let report = LoopbackCapture.temporaryPath("probe.json")
        toRemove.append(report)
        let capture = try LoopbackCapture.record(filter: "tcp port \(servers.httpPort)") {
            let run = try wirelens(["probe", "--format", "json", "--report", report, "-q"] + arguments
                + [servers.http("/small.txt")])
            guard run.status == 0 else { throw LoopbackCapture.Failure(description: "probe failed: \(run.stderr)") }
        }
        toRemove.append(capture)
        return (capture, report)
    }

    private func verification(_ capture: String, _ report: String) throws -> (ProcessRunner.Outcome, [String: Any]) {
        let output = LoopbackCapture.temporaryPath("verify.json")
        toRemove.append(output)
        let outcome = try wirelens(["capture", "analyze", capture, "--probe", report, "--format", "json", "--report", output, "-q"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
            as? [String: Any])
        return (outcome, try XCTUnwrap(json["verification"] as? [String: Any]))
    }

    func testKeepAliveRunWithAConnectionLimitAgreesWithTheWire() throws {
        let (capture, report) = try capturedProbe(["--repeat", "6", "--concurrency", "3", "--max-host-connections", "2"])
        let (outcome, v) = try verification(capture, report)
        XCTAssertEqual(v["disagreements"] as? [String], [], "\(v)")
        XCTAssertEqual(outcome.status, ExitStatus.success.rawValue, outcome.stderr)
        let opened = try XCTUnwrap(v["connectionsOpenedByProbe"] as? Int)
        XCTAssertEqual(v["connectionsOnWire"] as? Int, opened)
        XCTAssertGreaterThanOrEqual(opened, 1)
        XCTAssertLessThanOrEqual(opened, 2, "the limit of 2 per host")
        let host = try XCTUnwrap((v["hosts"] as? [[String: Any]])?.first)
        XCTAssertLessThanOrEqual(try XCTUnwrap(host["maxConcurrent"] as? Int), 2)
        XCTAssertEqual(host["configuredLimit"] as? Int, 2)
        let transactions = try XCTUnwrap(v["transactions"] as? [[String: Any]])
        XCTAssertEqual(transactions.count, 6)
        XCTAssertTrue(transactions.allSatisfy { $0["reuseConfirmed"] as? Bool == true && $0["exchange"] is Int }, "\(transactions)")
        XCTAssertEqual(transactions.filter { $0["ownsSYN"] as? Bool == true }.count, opened)
        XCTAssertEqual(transactions.filter { $0["claimedReuse"] as? Bool == true }.count, 6 - opened)
        let perConnection = try XCTUnwrap(v["requestsPerConnection"] as? [[String: Any]])
        XCTAssertEqual(perConnection.compactMap { $0["wireExchanges"] as? Int }.reduce(0, +), 6)
    }

    func testNoReuseRunOpensOneConnectionPerTransaction() throws {
        let (capture, report) = try capturedProbe(["--repeat", "4", "--no-reuse"])
        let (outcome, v) = try verification(capture, report)
        XCTAssertEqual(outcome.status, ExitStatus.success.rawValue, "\(outcome.stderr) \(v)")
        XCTAssertEqual(v["connectionsOpenedByProbe"] as? Int, 4)
        XCTAssertEqual(v["connectionsOnWire"] as? Int, 4)
        let transactions = try XCTUnwrap(v["transactions"] as? [[String: Any]])
        XCTAssertEqual(Set(transactions.compactMap { $0["connection"] as? Int }).count, 4)
        XCTAssertTrue(transactions.allSatisfy { $0["ownsSYN"] as? Bool == true && $0["connectAgrees"] as? Bool == true })
    }

    func testAlteredClaimsAreCaughtAndSetTheExitCode() throws {
        let (capture, report) = try capturedProbe(["--repeat", "4", "--max-host-connections", "1"])
        // Mark a reused transaction as new, and move another one to a local port nobody used: its exchange on
        // the wire is then explained by no transaction.
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            as? [String: Any])
        var tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        var task = tasks[1]
        var transactions = try XCTUnwrap(task["transactions"] as? [[String: Any]])
        XCTAssertEqual(transactions[0]["reusedConnection"] as? Bool, true)
        transactions[0]["reusedConnection"] = false
        task["transactions"] = transactions
        tasks[1] = task
        var moved = tasks[3]
        var movedTransactions = try XCTUnwrap(moved["transactions"] as? [[String: Any]])
        movedTransactions[0]["localPort"] = 1
        moved["transactions"] = movedTransactions
        tasks[3] = moved
        json["tasks"] = tasks
        let altered = LoopbackCapture.temporaryPath("altered.json")
        toRemove.append(altered)
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: altered))

        let (outcome, v) = try verification(capture, altered)
        XCTAssertEqual(outcome.status, ExitStatus.wireDisagreement.rawValue, outcome.stderr)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        let disagreements = try XCTUnwrap(v["disagreements"] as? [String])
        XCTAssertTrue(disagreements.contains { $0.hasPrefix("task 1 transaction 0: marked new") }, "\(disagreements)")
        XCTAssertTrue(disagreements.contains { $0.hasPrefix("task 3 transaction 0: no connection 127.0.0.1:1") }, "\(disagreements)")
        XCTAssertTrue(disagreements.contains { $0.contains("not explained by any transaction") }, "\(disagreements)")

        let text = try wirelens(["capture", "analyze", capture, "--probe", altered])
        XCTAssertEqual(text.status, ExitStatus.wireDisagreement.rawValue)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let verificationLine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("Verification: 3 disagreements") }, text.stdout)
        XCTAssertLessThan(verificationLine, try XCTUnwrap(lines.firstIndex(of: "Summary")), "disagreements come first")
    }

    func testLiveCaptureDuringAProbeRunAgreesWithItsReuseFlags() throws {
        let servers = try TestServers.get()
        let pcap = LoopbackCapture.temporaryPath("live.pcap")
        let wire = LoopbackCapture.temporaryPath("live.json")
        toRemove += [pcap, wire]
        let run = try wirelens(["probe", "--repeat", "5", "--concurrency", "2", "--capture", "--capture-file", pcap,
                                "--capture-report", wire, "--format", "json", servers.http("/bytes/1k.bin")])
        XCTAssertEqual(run.status, ExitStatus.success.rawValue, run.stderr)
        XCTAssertTrue(run.stderr.contains("capture on lo:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("the wire agrees with the report"), run.stderr)
        let probe = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(probe["schema"] as? String, "wirelens.report/2", "stdout stays the probe's JSON report")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: wire)))
            as? [String: Any])
        let v = try XCTUnwrap(json["verification"] as? [String: Any])
        XCTAssertEqual(v["disagreements"] as? [String], [])
        let transactions = try XCTUnwrap(v["transactions"] as? [[String: Any]])
        XCTAssertEqual(transactions.count, 5)
        XCTAssertTrue(transactions.allSatisfy { $0["reuseConfirmed"] as? Bool == true }, "\(transactions)")
        // The pcap written alongside reads back to the same connections.
        let again = try wirelens(["capture", "analyze", pcap, "--format", "json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let reread = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((reread["summary"] as? [String: Any])?["exchanges"] as? Int, 5)
    }

    /// nginx closes each connection after its third request (keepalive_requests 3) while four tasks share a limit of
    /// two connections: the live verification finds nothing to disagree with, and tshark's reading of the same
    /// packets shows what nginx was told (at most 3 requests per connection, so at least 10 connections).
    func testALiveRunAgainstNginxClosingEveryThirdRequestWithALimitOfTwoVerifiesClean() throws {
        let servers = try TestServers.get()
        let pcap = LoopbackCapture.temporaryPath("keepalive3.pcap")
        let wire = LoopbackCapture.temporaryPath("keepalive3.json")
        toRemove += [pcap, wire]
        let run = try wirelens(["probe", "--repeat", "30", "--concurrency", "4", "--max-host-connections", "2",
                                "--capture", "--capture-file", pcap, "--capture-report", wire, "--format", "json", "-q",
                                servers.http("/keepalive3/small.txt")])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: wire)))
            as? [String: Any], run.stderr)
        let v = try XCTUnwrap(json["verification"] as? [String: Any])
        XCTAssertEqual(v["disagreements"] as? [String], [], "\(v)")
        XCTAssertEqual(run.status, ExitStatus.success.rawValue, run.stderr)
        let requests = try TsharkOracle.requestsPerStream(pcap)
        XCTAssertEqual(requests.values.map(\.count).reduce(0, +), 30, "\(requests)")
        XCTAssertLessThanOrEqual(requests.values.map(\.count).max() ?? 0, 3, "\(requests)")
        XCTAssertGreaterThanOrEqual(requests.count, 10)
        let host = try XCTUnwrap((v["hosts"] as? [[String: Any]])?.first)
        XCTAssertLessThanOrEqual(try XCTUnwrap(host["maxConcurrent"] as? Int), 2)
    }

    /// HTTP/1.1 over TLS with keep-alive (TLS 1.3: the client's Finished and the server's tickets are encrypted
    /// records too): the six requests asked for are six runs of client records on the wire, counted against the
    /// transactions without a false alarm.
    func testALiveHTTPSRunCountsItsEncryptedRequestsWithoutAFalseAlarm() throws {
        let servers = try TestServers.get()
        let wire = LoopbackCapture.temporaryPath("https.json")
        toRemove.append(wire)
        let run = try wirelens(["probe", "--http1.1", "--cacert", servers.certPath, "--repeat", "6", "--concurrency", "2",
                                "--capture", "--capture-report", wire, "--format", "json", "-q",
                                servers.https("/small.txt")])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: wire)))
            as? [String: Any], run.stderr)
        let v = try XCTUnwrap(json["verification"] as? [String: Any])
        XCTAssertEqual((v["strayExchanges"] as? [Any])?.count, 0, "\(v)")
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.map { ($0["exchanges"] as? [Any])?.count ?? 0 }.reduce(0, +), 6, "\(connections)")
    }

    /// SIGTERM during a probe run with a live capture: the capture report is still written (no temporary file
    /// left), valid, and marked interrupted like the probe's own report.
    func testASignalDuringALiveCaptureMarksItsReportInterrupted() throws {
        let servers = try TestServers.get()
        let directory = LoopbackCapture.temporaryPath("live-signal")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pcap = directory + "/live.pcap", wire = directory + "/wire.json"
        let run = try ProcessRunner.run(binary, ["probe", "--repeat", "50", "--capture", "--capture-file", pcap,
                                                 "--capture-report", wire, "--format", "json", "-q",
                                                 servers.target("/delay/400")], timeout: 60) { pid in
            // Packets in the capture file (beyond its 24-byte header): the run and its capture are under way.
            for _ in 0..<400 {
                var status = stat()
                if stat(pcap, &status) == 0, status.st_size > 200 { break }
                usleep(25_000)
            }
            kill(pid, SIGTERM)
        }
        XCTAssertFalse(run.signaled, run.stderr)
        XCTAssertEqual(run.status, ExitStatus.terminated.rawValue, run.stderr)
        let probe = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(probe["interrupted"] as? Bool, true)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: wire)))
            as? [String: Any])
        XCTAssertEqual(json["interrupted"] as? Bool, true)
        let schema = TestServers.repositoryRoot.appendingPathComponent("docs/capture.schema.json").path
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys, jsonschema
            jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
            """, wire, schema], timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory).sorted(), ["live.pcap", "wire.json"])
    }

    func testWithoutPermissionToCaptureTheProbeStillRuns() throws {
        try XCTSkipUnless(geteuid() == 0, "dropping to an unprivileged user needs root")
        let servers = try TestServers.get()
        let run = try ProcessRunner.run("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                                              binary, "probe", "--capture", "-q", servers.http("/small.txt")])
        XCTAssertEqual(run.status, ExitStatus.success.rawValue, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("cannot capture on 'lo': permission denied"), run.stderr)
        XCTAssertTrue(run.stdout.contains("200"), run.stdout)
    }
}
