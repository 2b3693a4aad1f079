import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// Verdicts on conditions made on purpose with the target server on loopback, each checked against the condition
/// and against the bytes the target itself counted.
final class DiagnosisVerdictTests: XCTestCase {
    /// The first transaction of a probe's JSON report, and the report's first task.
    private func probe(_ arguments: [String]) throws -> (transaction: [String: Any], task: [String: Any]) {
        let report = CLIHarness.temporaryPath("why.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe"] + arguments + ["--format", "json", "--report", report, "-q"], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return try CLIHarness.firstTransaction(ofReport: report)
    }

    private func diagnosis(_ tx: [String: Any]) throws -> (verdict: String, evidence: [String: Any]) {
        try CLIHarness.diagnosis(tx)
    }

    /// A target reading 720 KB/s per connection through a 16 KiB receive buffer: the window over the RTT is the cap,
    /// and that cap is the target's own pace, within 20% (the kernel's smoothed RTT moves with a loaded host's
    /// scheduling: a CI run gave 823 KB/s).
    func testASmallServerBufferIsTheServersWindowAndItsCapIsTheServersPace() throws {
        let rate = 720_000
        let peer = try SegmentPeer.start(rate: rate, receiveBuffer: 16 * 1024)
        defer { peer.stop() }
        let (tx, _) = try probe(["--upload-size", "2MB", peer.uploadURL("window")])
        let (verdict, evidence) = try diagnosis(tx)
        XCTAssertEqual(verdict, "server-window", "\(evidence)")
        let cap = try XCTUnwrap(evidence["windowCap"] as? Double)
        XCTAssertEqual(cap, Double(rate), accuracy: Double(rate) * 0.20, "window / RTT against the target's --rate")
        XCTAssertGreaterThan(try XCTUnwrap(evidence["receiveWindowLimitedShare"] as? Double), 0.5)
    }

    /// A target reading 720 KB/s through a large buffer: the buffer fills and the window closes, rwnd-limited most
    /// of the send time.
    func testASlowReadingServerIsTheServersWindowMostOfTheSendTime() throws {
        let peer = try SegmentPeer.start(rate: 720_000, receiveBuffer: 256 * 1024)
        defer { peer.stop() }
        let (tx, _) = try probe(["--upload-size", "2MB", peer.uploadURL("slow")])
        let (verdict, evidence) = try diagnosis(tx)
        XCTAssertEqual(verdict, "server-window", "\(evidence)")
        XCTAssertGreaterThan(try XCTUnwrap(evidence["receiveWindowLimitedShare"] as? Double), 0.8)
        XCTAssertGreaterThan(try XCTUnwrap(evidence["zeroWindowShare"] as? Double), 0)
    }

    /// A 4 KiB send buffer on loopback to an unshaped target: one segment in flight at a time, acknowledged late
    /// by the receiver's delayed ACK, while the congestion window and the server's window allow far more. The
    /// kernel counts that time as busy, not sndbuf-limited; the samples show the buffer was the limit.
    func testASmallClientSendBufferIsTheSendBuffer() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let (tx, _) = try probe(["--sndbuf", "4KiB", "--upload-size", "4MB", peer.uploadURL("sndbuf")])
        let (verdict, evidence) = try diagnosis(tx)
        XCTAssertEqual(verdict, "send-buffer", "\(evidence)")
        // socket(7): the kernel doubles the value set with SO_SNDBUF (for its bookkeeping) and reports the double.
        XCTAssertEqual(evidence["sendBuffer"] as? Int, 2 * 4096)
        XCTAssertGreaterThan(try XCTUnwrap(evidence["bufferBoundShare"] as? Double), 0.5)
        // The same upload with the kernel's own buffer is not held back by it.
        let (plain, _) = try probe(["--upload-size", "4MB", peer.uploadURL("plain")])
        let plainDiagnosis = try diagnosis(plain)
        XCTAssertNotEqual(plainDiagnosis.verdict, "send-buffer", "\(plainDiagnosis.evidence)")
    }

    /// A target that waits 300 ms before answering: the time is the server's.
    func testAServerThatWaitsIsServerThink() throws {
        let peer = try SegmentPeer.start(partDelayMs: 300)
        defer { peer.stop() }
        let (tx, _) = try probe([peer.url("/bytes/1000")])
        let (verdict, evidence) = try diagnosis(tx)
        XCTAssertEqual(verdict, "server-think", "\(evidence)")
        let wait = try XCTUnwrap((tx["phasesMs"] as? [String: Any])?["wait"] as? Double)
        XCTAssertGreaterThanOrEqual(wait, 300)
        XCTAssertGreaterThan(try XCTUnwrap(evidence["waitShare"] as? Double), 0.5)
    }

    /// The kernel's count of acknowledged bytes over an upload is exactly the request: libcurl's header bytes plus
    /// the body bytes the target says it received.
    func testAcknowledgedBytesAreTheRequestTheTargetReceived() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let output = CLIHarness.temporaryPath("answer.json")
        defer { unlink(output) }
        let (tx, _) = try probe(["--detail", "full", "--upload-size", "3MB", "-o", output, peer.uploadURL("acked")])
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        let received = try XCTUnwrap(answer["bytes"] as? Int)
        XCTAssertEqual(received, 3_000_000)
        let tcp = try XCTUnwrap(tx["tcp"] as? [String: Any])
        let headers = try XCTUnwrap(tx["requestHeaderBytes"] as? Int)
        XCTAssertEqual(tcp["bytesAcked"] as? Int, headers + received)
        XCTAssertEqual(tcp["shared"] as? Bool, false)
        XCTAssertGreaterThanOrEqual((tcp["samples"] as? [Any])?.count ?? 0, 2)
    }

    func testSamplingOnlyAtStartAndEnd() throws {
        let peer = try SegmentPeer.start(rate: 1_000_000)
        defer { peer.stop() }
        let (tx, _) = try probe(["--detail", "full", "--tcp-sample", "0", "--upload-size", "500KB", peer.uploadURL("ends")])
        let samples = try XCTUnwrap((tx["tcp"] as? [String: Any])?["samples"] as? [[String: Any]])
        XCTAssertEqual(samples.count, 2, "the transfer's first and last snapshots only")
    }

    /// The run's summary counts the verdicts, in JSON and in the text summary.
    func testTheSummaryCountsTheVerdicts() throws {
        let peer = try SegmentPeer.start(partDelayMs: 150)
        defer { peer.stop() }
        let report = CLIHarness.temporaryPath("why-summary.json")
        defer { unlink(report) }
        let json = try CLIHarness.run(["probe", peer.url("/bytes/100"), "--repeat", "3", "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let verdicts = try XCTUnwrap((document["summary"] as? [String: Any])?["verdicts"] as? [String: Any])
        XCTAssertEqual((verdicts["server-think"] as? [String: Any])?["transactions"] as? Int, 3, "\(verdicts)")
        let text = try CLIHarness.run(["probe", peer.url("/bytes/100"), "--repeat", "3"])
        XCTAssertTrue(text.stdout.contains("server-think (3, 100% of the time)"), text.stdout)
    }

    /// HTTP/2 streams in flight at once on one connection: their kernel facts are the connection's, and say so.
    func testStreamsSharingAConnectionSayTheirFactsAreTheConnections() throws {
        let servers = try TestServers.get()
        let report = CLIHarness.temporaryPath("why-h2.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", servers.https("/bytes/1m.bin"), "--cacert", servers.certPath, "--http2",
                                          "--repeat", "8", "--concurrency", "4", "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let transactions = (document["tasks"] as? [[String: Any]] ?? []).flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(Set(transactions.compactMap { $0["connectionId"] as? Int }).count, 1, "h2 carries every stream on one connection")
        let shared = transactions.filter { ($0["tcp"] as? [String: Any])?["shared"] as? Bool == true }
        XCTAssertGreaterThanOrEqual(shared.count, 2, "streams in flight together share the connection's facts")
        for tx in shared {
            let evidence = (tx["diagnosis"] as? [String: Any])?["evidence"] as? [String: Any]
            XCTAssertEqual(evidence?["sharedConnection"] as? Bool, true)
        }
    }

    /// HAR carries the same facts as custom fields (`_tcp`, `_diagnosis`), as HAR 1.2 allows.
    func testHARCarriesTheKernelFactsAndTheVerdict() throws {
        let peer = try SegmentPeer.start(partDelayMs: 200)
        defer { peer.stop() }
        let har = CLIHarness.temporaryPath("why.har")
        defer { unlink(har) }
        let outcome = try CLIHarness.run(["probe", peer.url("/bytes/1000"), "--format", "har", "--report", har, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: har))) as? [String: Any])
        let entry = try XCTUnwrap(((json["log"] as? [String: Any])?["entries"] as? [[String: Any]])?.first)
        XCTAssertEqual((entry["_diagnosis"] as? [String: Any])?["verdict"] as? String, "server-think")
        let tcp = try XCTUnwrap(entry["_tcp"] as? [String: Any])
        XCTAssertGreaterThan(tcp["bytesReceived"] as? Int ?? 0, 1000, "the response's bytes were received")
    }

    func testNoKernelFactsWhenTurnedOff() throws {
        let peer = try SegmentPeer.start(partDelayMs: 200)
        defer { peer.stop() }
        let (tx, _) = try probe(["--tcp-sample", "off", peer.url("/bytes/1000")])
        XCTAssertTrue(tx["tcp"] is NSNull, "no kernel facts when turned off: \(tx["tcp"] ?? "missing")")
        // The phases alone still tell a server that thinks.
        XCTAssertEqual(try diagnosis(tx).verdict, "server-think")
    }

    func testBadSamplingIntervalsAndBuffersAreUsageErrors() throws {
        for value in ["-5ms", "1us", "2h", "fast"] {
            try CLIHarness.assertFails(["probe", "--tcp-sample", value, "http://127.0.0.1:9/"], code: .usage, mention: "--tcp-sample")
        }
        try CLIHarness.assertFails(["probe", "--sndbuf", "12", "http://127.0.0.1:9/"], code: .usage, mention: "--sndbuf")
        try CLIHarness.assertFails(["target", "--rcvbuf", "1TB"], code: .usage, mention: "--rcvbuf")
    }
}
