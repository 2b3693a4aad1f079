import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// Issue 27 item 4: HTTP/2 flow control on uploads. nghttpd (nghttp2-server) in a NetworkPath's server namespace
/// across a 40 ms round trip grants 64 KiB a stream and a connection unless told otherwise (`-w`/`-W`, log2 of the
/// window); the oracles are those windows as configured and the path's configured delay. nginx opens its window as
/// it reads, so its h2 upload must not be called `h2-window`. Needs root and nghttpd (CI has both): without them the
/// tests fail with the reason.
final class H2WindowVerdictTests: XCTestCase {
    private static let nghttpd = "/usr/sbin/nghttpd"
    /// nghttpd's default window (2^16 - 1 bytes) and the round trip the path adds (20 ms each way).
    private static let defaultWindow = 65_535.0
    private static let roundTrip = 0.040

    /// nghttpd serving `docs` without TLS (h2c, prior knowledge) on port 8080 in the path's server namespace, with
    /// `flags`; returns once it listens.
    private func startNghttpd(_ path: NetworkPath, docs: String, _ flags: [String]) throws -> ServerProcess {
        guard FileManager.default.isExecutableFile(atPath: Self.nghttpd) else {
            throw Failure("nghttpd not found at \(Self.nghttpd): scripts/deps.sh installs nghttp2-server")
        }
        let server = try path.process(in: path.serverNamespace, Self.nghttpd, ["--no-tls", "-d", docs] + flags + ["8080"])
        for _ in 0..<100 {
            let listening = try path.run(in: path.serverNamespace, "/usr/bin/ss", ["-Hltn", "sport = :8080"], timeout: 10)
            if listening.stdout.contains("8080") { return server }
            usleep(50_000)
        }
        server.kill()
        throw Failure("nghttpd did not listen on 8080 within 5 s: \(server.stderr)")
    }

    /// A scratch document root for nghttpd holding the `up` resource the uploads are sent to.
    private func makeDocs() throws -> String {
        let docs = CLIHarness.temporaryPath("h2w-docs")
        try FileManager.default.createDirectory(atPath: docs, withIntermediateDirectories: true)
        try Data("ok\n".utf8).write(to: URL(fileURLWithPath: docs + "/up"))
        return docs
    }

    /// A failure with a reason (never a skip: CI must see it).
    private struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `wirelens probe --http2-prior-knowledge --upload-size SIZE URL` from the client namespace: its first
    /// transaction's protocol, verdict and evidence.
    private func upload(_ path: NetworkPath, size: String) throws -> (protocolName: String?, verdict: String,
                                                                       evidence: [String: Any]) {
        let report = CLIHarness.temporaryPath("h2w.json")
        defer { unlink(report) }
        let outcome = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                   ["probe", "--http2-prior-knowledge", "--upload-size", size,
                                    "http://\(path.serverIP):8080/up", "--format", "json", "--report", report, "-q"],
                                   timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        return (tx["networkProtocolName"] as? String, verdict, evidence)
    }

    /// A 40 Mbit/s link with a 40 ms round trip: 64 KiB a round trip (1.6 MB/s) cannot fill it, 1 MiB (26 MB/s) can.
    /// (Without the rate limit 1 MiB windows are the limit too: nghttp2 grants half a window again at a time.)
    func testNghttpdsDefaultWindowsAcrossFortyMillisecondsAreTheH2WindowAndLargeOnesAreNot() throws {
        let path = try NetworkPath.up(rate: "40mbit", queue: "50ms", delay: "20ms")
        defer { path.down() }
        let docs = try makeDocs()
        defer { try? FileManager.default.removeItem(atPath: docs) }

        let small = try startNghttpd(path, docs: docs, [])
        let held = try upload(path, size: "2MB")
        small.kill()
        _ = small.waitForExit(seconds: 5)
        XCTAssertEqual(held.protocolName, "h2")
        XCTAssertEqual(held.verdict, "h2-window", "\(held.evidence)")
        // At most the window in flight (its DATA frames' 9-byte headers and a segment's rounding aside), and at least
        // the half nghttp2 grants again once it has read it.
        let inFlight = Double(try XCTUnwrap(held.evidence["inFlightMax"] as? Int))
        XCTAssertLessThanOrEqual(inFlight, Self.defaultWindow + 2 * 1448, "the 64 KiB window nghttpd grants")
        XCTAssertGreaterThanOrEqual(inFlight, Self.defaultWindow / 2)
        // No faster than a window a round trip.
        let rate = try XCTUnwrap(held.evidence["bodyRate"] as? Double)
        XCTAssertLessThanOrEqual(rate, Self.defaultWindow / Self.roundTrip * 1.05, "64 KiB per 40 ms")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(held.evidence["nothingUnsentShare"] as? Double), Diagnosis.h2StarvedShare)

        // 1 MiB windows (-w 20 -W 20) on the same path: more than the small window could carry, and not its verdict.
        let large = try startNghttpd(path, docs: docs, ["-w", "20", "-W", "20"])
        defer { large.kill(); _ = large.waitForExit(seconds: 5) }
        let open = try upload(path, size: "4MB")
        XCTAssertEqual(open.protocolName, "h2")
        XCTAssertNotEqual(open.verdict, "h2-window", "\(open.evidence)")
        let openRate = try XCTUnwrap(open.evidence["bodyRate"] as? Double)
        XCTAssertGreaterThan(openRate, Self.defaultWindow / Self.roundTrip, "1 MiB windows let more than 64 KiB a round trip through")
        XCTAssertLessThanOrEqual(openRate, 40e6 / 8 * 1448 / 1514 * 1.05, "no more than tbf's 40 Mbit/s less the headers")
    }

    /// An h2 upload whose socket blocks mid-frame arrives intact: a send buffer (`--sndbuf 128K`) far below nghttpd's
    /// 1 MiB windows across the 40 ms path makes libcurl 7.88's sends block often, which with a 512 KiB upload buffer
    /// sent part of the body twice and had the stream reset (PROTOCOL_ERROR, exit 9) every time. The oracle is
    /// nghttpd's own frame log (`-v`): the DATA it received on the stream adds up to the body, and the last one
    /// ends the stream.
    func testAnH2UploadWhoseSendsBlockArrivesIntact() throws {
        let path = try NetworkPath.up(rate: "40mbit", queue: "50ms", delay: "20ms")
        defer { path.down() }
        let docs = try makeDocs()
        defer { try? FileManager.default.removeItem(atPath: docs) }
        let server = try startNghttpd(path, docs: docs, ["-v", "-w", "20", "-W", "20"])
        defer { server.kill(); _ = server.waitForExit(seconds: 5) }

        for attempt in 1...3 {
            let outcome = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                       ["probe", "--http2-prior-knowledge", "--sndbuf", "128K", "--upload-size", "4MB",
                                        "http://\(path.serverIP):8080/up", "-q", "-o", "/dev/null",
                                        "-w", "%{http_code}"], timeout: 60)
            XCTAssertEqual(outcome.status, 0, "upload \(attempt): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "200", "upload \(attempt)")
        }
        // nghttpd numbers its connections: each upload is one, its request stream 1.
        let frames = server.stdout.split(separator: "\n").filter { $0.contains("recv DATA frame") }
        var received: [Substring: Int] = [:]
        var ended = 0
        for line in frames {
            guard let connection = line.split(separator: " ").first,
                  let range = line.range(of: "length="),
                  let length = Int(line[range.upperBound...].prefix { $0.isNumber }) else { continue }
            received[connection, default: 0] += length
            if line.contains("flags=0x01") { ended += 1 }
        }
        XCTAssertEqual(received.count, 3, "three connections carried DATA: \(received)")
        for (connection, bytes) in received {
            XCTAssertEqual(bytes, 4_000_000, "\(connection): the DATA nghttpd received is the body, once")
        }
        XCTAssertEqual(ended, 3, "each upload's last DATA frame ended its stream")
    }

    /// nginx 1.22 opens its HTTP/2 window as it reads (h2c on loopback): never `h2-window`; nginx's access log
    /// shows the whole body arrived over HTTP/2.
    func testAnH2UploadToNginxIsNotTheH2Window() throws {
        let servers = try TestServers.get()
        let name = "h2w-\(UUID().uuidString).bin"
        let report = CLIHarness.temporaryPath("h2w-nginx.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", "--http2-prior-knowledge", "--upload-size", "16MB",
                                          servers.h2c("/upload/\(name)"), "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        XCTAssertEqual(tx["networkProtocolName"] as? String, "h2")
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        XCTAssertNotEqual(verdict, "h2-window", "\(evidence)")
        let stored = try FileManager.default.attributesOfItem(atPath: servers.uploadRoot + "/www/upload/" + name)
        XCTAssertEqual((stored[.size] as? NSNumber)?.int64Value, 16_000_000, "nginx stored the whole body")
    }
}
