import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// Download verdicts made on purpose, each from the receiving side (no capture): the client and the target server in
/// network namespaces of their own (scripts/netpath.sh: a tbf rate limit, a random drop on the downlink, the delay
/// line), each verdict checked against what the test built (the router's counters, the server's rate, a reader the
/// test runs, the kernel's doubling of SO_RCVBUF, the namespace's sysctl). Needs root (CI runs as root): without it
/// each test fails with the reason.
final class DownloadVerdictTests: XCTestCase {
    /// Runs `wirelens probe` in the path's client namespace (on loopback without a path); the first transaction of
    /// its JSON report, the report validated against the schema.
    private func probe(_ path: NetworkPath?, _ arguments: [String]) throws -> [String: Any] {
        let report = CLIHarness.temporaryPath("dl.json")
        defer { unlink(report) }
        let all = ["probe"] + arguments + ["--format", "json", "--report", report, "-q"]
        let outcome = try path.map { try $0.run(in: $0.clientNamespace, WirelensCLI.path, all, timeout: 120) }
            ?? CLIHarness.run(all, timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        return try CLIHarness.firstTransaction(ofReport: report).transaction
    }

    /// The verdict, the evidence and the basis of a transaction; every verdict but unknown has a confidence in 0...1
    /// and a basis that states it.
    private func diagnosis(_ tx: [String: Any], file: StaticString = #filePath,
                           line: UInt = #line) throws -> (verdict: String, evidence: [String: Any], basis: String) {
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        let basis = (tx["diagnosis"] as? [String: Any])?["basis"] as? String ?? ""
        if verdict != "unknown" {
            let confidence = try XCTUnwrap(evidence["confidence"] as? Double, "\(evidence)", file: file, line: line)
            XCTAssertTrue((0...1).contains(confidence), "\(confidence)", file: file, line: line)
            XCTAssertTrue(basis.hasSuffix("confidence \(String(format: "%.2f", confidence))"), basis, file: file, line: line)
        }
        return (verdict, evidence, basis)
    }

    private func number(_ evidence: [String: Any], _ key: String, file: StaticString = #filePath,
                        line: UInt = #line) throws -> Double {
        try XCTUnwrap(evidence[key] as? Double, "\(key) in \(evidence)", file: file, line: line)
    }

    /// A 16 Mbit/s downlink with a 50 ms queue and an unshaped target: the sender fills the tbf's queue, so the
    /// receive RTT stands well above its minimum, and the body comes at the link's payload rate (tbf counts a full
    /// segment as 1514 bytes carrying 1448): `network`.
    ///
    /// The path drops nothing and should not reorder, but on a loaded host the router's tbf hands packets on from
    /// both CPUs and they can arrive out of order (a CI run: 549, and the basis then named them instead of the
    /// queue). A run whose client kernel queued more than a few segments out of order (TcpExt TCPOFOQueue of the
    /// client's namespace) is not this case, and is made again, up to three tries.
    func testARateLimitedDownlinkIsTheNetwork() throws {
        let path = try NetworkPath.up(rate: "16mbit", queue: "50ms")
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let size = 3_000_000
        func outOfOrderQueued() throws -> Int {
            try KernelCounters.read("/proc/net/netstat", row: "TcpExt:", in: path, namespace: path.clientNamespace)
                .value("TCPOFOQueue")
        }
        var before = try outOfOrderQueued()
        var tx = try probe(path, [peer.url("/bytes/\(size)")])
        for _ in 1..<3 {
            let after = try outOfOrderQueued()
            guard after - before > 5 else { break }
            print("rate-limited downlink: the client queued \(after - before) segments out of order, again")
            before = after
            tx = try probe(path, [peer.url("/bytes/\(size)")])
        }
        let (verdict, evidence, basis) = try diagnosis(tx)
        XCTAssertEqual(verdict, "network", "\(basis) \(evidence)")
        XCTAssertTrue(basis.contains(": a queue"), basis)
        let payloadRate = 16_000_000.0 / 8 * 1448 / 1514
        XCTAssertLessThanOrEqual(try number(evidence, "bodyRate"), payloadRate * 1.05, "no faster than the tbf allows")
        XCTAssertGreaterThanOrEqual(try number(evidence, "bodyRate"), payloadRate * 0.7, "the link was full")
        XCTAssertLessThan(try number(evidence, "windowFill"), 0.7)
        let counters = try path.counters()
        XCTAssertGreaterThanOrEqual(counters.downSentBytes, size, "the body crossed the downlink's tbf: \(counters)")
        XCTAssertEqual(counters.downDropPackets, 0)
    }

    /// A 3% random drop on the downlink: the client sees out-of-order arrivals after each hole, and the router's
    /// drop rule dropped packets: `network`, whatever the window.
    func testALossyDownlinkIsTheNetworkByItsOutOfOrderArrivals() throws {
        let path = try NetworkPath.up(rate: "50mbit", downDrop: 0.03)
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let tx = try probe(path, [peer.url("/bytes/3000000")])
        let (verdict, evidence, basis) = try diagnosis(tx)
        XCTAssertEqual(verdict, "network", "\(basis) \(evidence)")
        let counters = try path.counters()
        XCTAssertGreaterThan(counters.downDropPackets, 0, "\(counters)")
        let outOfOrder = try XCTUnwrap(evidence["outOfOrderPacketsIn"] as? Int, "\(evidence)")
        XCTAssertGreaterThan(outOfOrder, 0, "a hole per drop: \(counters.downDropPackets) dropped")
        XCTAssertTrue(basis.contains("\(outOfOrder) packets arrived out of order"), basis)
    }

    /// A target that sends at most 400 KB/s a connection, over an unshaped path: the client's window stays open, no
    /// queue and no loss: `server-send`, the body at the server's rate.
    func testAServerThatSendsSlowlyIsServerSend() throws {
        let rate = 400_000.0
        let path = try NetworkPath.up()
        defer { path.down() }
        let peer = try SegmentPeer.start(rate: Int(rate), in: path)
        defer { peer.stop() }
        let report = CLIHarness.temporaryPath("dl-slow.json")
        defer { unlink(report) }
        let outcome = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                   ["probe", peer.url("/bytes/1000000"), "--format", "json", "--report", report, "-q",
                                    "-w", "%{verdict}"], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "server-send", "-w %{verdict}")
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        let (verdict, evidence, basis) = try diagnosis(tx)
        XCTAssertEqual(verdict, "server-send", "\(basis) \(evidence)")
        XCTAssertEqual(try number(evidence, "bodyRate"), rate, accuracy: rate * 0.15, "the target's --rate")
        XCTAssertLessThan(try number(evidence, "windowFill"), 0.7)
        XCTAssertEqual(evidence["outOfOrderPacketsIn"] as? Int, 0)
        // The same verdict in every rendering of the report: text (Why and Basis), HTML's table, HAR's comment.
        let text = try CLIHarness.run(["render", report, "--no-color"])
        XCTAssertTrue(text.stdout.contains("server-send: The server sent slower"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Basis"), text.stdout)
        let html = try CLIHarness.run(["render", report, "--format", "html"])
        XCTAssertTrue(html.stdout.contains("<td>server-send</td><td class=\"num\">1</td>"), "the HTML verdict table")
        let har = try CLIHarness.run(["render", report, "--format", "har"])
        let entries = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(har.stdout.utf8)) as? [String: Any])?["log"]
            as? [String: Any])?["entries"] as? [[String: Any]])
        XCTAssertTrue((entries.first?["comment"] as? String)?.hasPrefix("server-send: ") == true, "\(entries)")
        // And in Prometheus, from a check of the same URL in the client's namespace.
        let config = CLIHarness.temporaryPath("dl-check.yaml")
        defer { unlink(config) }
        try "checks:\n  - name: slow\n    url: \(peer.url("/bytes/1000000"))\n".write(toFile: config, atomically: true,
                                                                                    encoding: .utf8)
        let check = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                 ["check", config, "--format", "prometheus", "--no-history"], timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("wirelens_diagnosis_info{check=\"slow\",verdict=\"server-send\"} 1"), check.stdout)
        XCTAssertTrue(check.stdout.contains("wirelens_diagnosis_confidence{check=\"slow\",verdict=\"server-send\"} "),
                      check.stdout)
    }

    /// nginx's own pacing on loopback (`limit_rate 512k` on /slow/, scripts/nginx-locations.conf.in): loopback's
    /// 64 KiB segments come one at a time between nginx's pauses, and the receive RTT, the time from the client's
    /// ACK to the data echoing it, measures those pauses (60-100 ms against a 30 µs path): still the server's pace.
    func testNginxPacingItsSendsOnLoopbackIsServerSend() throws {
        let servers = try TestServers.get()
        let tx = try probe(nil, [servers.http("/slow/1m.bin"), "-o", "/dev/null"])
        let (verdict, evidence, basis) = try diagnosis(tx)
        XCTAssertEqual(verdict, "server-send", "\(basis) \(evidence)")
        XCTAssertEqual(try number(evidence, "bodyRate"), 512 * 1024, accuracy: 512 * 1024 * 0.15, "nginx's limit_rate")
        XCTAssertGreaterThan(try number(evidence, "receiveRTTMedian"), 10 * (try number(evidence, "minRTT")),
                             "the receive RTT far above the path's: the case a queue rule must not take")
    }

    /// The body written into a FIFO that a reader (python, a process of its own) drains at 300 KB/s: the probe's
    /// writes wait for the reader, so the client did not read: `client`, the writes holding most of the receive
    /// phase, and the reader got every byte over about as long as the writes took.
    func testAClientReadingSlowlyThroughAFIFOIsTheClient() throws {
        let directory = CLIHarness.temporaryPath("dl-fifo")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/body"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, String(cString: strerror(errno)))
        let size = 900_000
        let reader = try ServerProcess("/usr/bin/env", ["python3", "-c", """
            import os, sys, time
            fd = os.open(sys.argv[1], os.O_RDONLY)
            total, first = 0, None
            while True:
                chunk = os.read(fd, 16384)
                if not chunk:
                    break
                if first is None:
                    first = time.monotonic()
                total += len(chunk)
                time.sleep(len(chunk) / 300000)
            print(total, int((time.monotonic() - (first or time.monotonic())) * 1e6), flush=True)
            """, fifo])
        defer { reader.kill() }
        let path = try NetworkPath.up()
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let tx = try probe(path, [peer.url("/bytes/\(size)"), "-o", fifo])
        XCTAssertEqual(reader.waitForExit(seconds: 20), 0, reader.stderr)
        let read = reader.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
        XCTAssertEqual(read.count, 2, reader.stdout)
        XCTAssertEqual(read.first, Double(size), "the reader got the whole body")
        let (verdict, evidence, basis) = try diagnosis(tx)
        XCTAssertEqual(verdict, "client", "\(basis) \(evidence)")
        XCTAssertGreaterThanOrEqual(try number(evidence, "writeShare"), 0.5)
        // The writes waited for the reader: they cannot have taken longer than it read, and took most of it.
        let readerSpan = read.last ?? 0
        let writeTime = try number(evidence, "writeTime")
        XCTAssertLessThanOrEqual(writeTime, readerSpan + 50_000, "writes against the reader's span \(readerSpan) µs")
        XCTAssertGreaterThanOrEqual(writeTime, readerSpan * 0.6, "writes against the reader's span \(readerSpan) µs")
    }

    /// The body's download over a 40 ms round trip (the delay line), `flags` given; the transaction.
    private func longPathDownload(_ path: NetworkPath, _ peer: SegmentPeer, _ flags: [String]) throws -> [String: Any] {
        try probe(path, flags + [peer.url("/bytes/1500000")])
    }

    /// A small client window over a 40 ms path, made two ways: `--rcvbuf 32KiB` (the kernel doubles SO_RCVBUF, and
    /// the body cannot come faster than that buffer per round trip) and `net.ipv4.tcp_rmem` in the client's
    /// namespace (its largest buffer 64 KiB, read back from the namespace): `client-window` both times; the same
    /// download left to the kernel's auto-tuning is not, and comes faster (the fix).
    func testASmallClientWindowOverALongPathIsTheClientWindowAndAutoTuningFixesIt() throws {
        let path = try NetworkPath.up(delay: "20ms")
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let roundTrip = 0.040

        let small = try longPathDownload(path, peer, ["--rcvbuf", "32KiB"])
        let (verdict, evidence, basis) = try diagnosis(small)
        XCTAssertEqual(verdict, "client-window", "\(basis) \(evidence)")
        XCTAssertEqual(evidence["receiveBuffer"] as? Int, 2 * 32 * 1024, "socket(7): the kernel doubles SO_RCVBUF")
        let smallRate = try number(evidence, "bodyRate")
        XCTAssertLessThanOrEqual(smallRate, 2 * 32 * 1024 / roundTrip, "no more than the buffer per round trip")
        XCTAssertEqual(try number(evidence, "minRTT"), roundTrip * 1e6, accuracy: roundTrip * 1e6 * 0.15,
                       "the path's minimum RTT against the delay line's 2 x 20 ms")

        let tuned = try longPathDownload(path, peer, [])
        let (tunedVerdict, tunedEvidence, tunedBasis) = try diagnosis(tuned)
        XCTAssertNotEqual(tunedVerdict, "client-window", "\(tunedBasis) \(tunedEvidence)")
        XCTAssertGreaterThan(try number(tunedEvidence, "bodyRate"), smallRate * 1.5, "auto-tuning is the fix")

        // /proc/sys/net is the writing process's network namespace's: the sysctl holds in the client's alone.
        let sysctl = try path.run(in: path.clientNamespace, "/bin/sh",
                                  ["-c", "echo '4096 16384 65536' > /proc/sys/net/ipv4/tcp_rmem"], timeout: 10)
        XCTAssertEqual(sysctl.status, 0, sysctl.stderr)
        let readBack = try path.run(in: path.clientNamespace, "/bin/cat", ["/proc/sys/net/ipv4/tcp_rmem"], timeout: 10)
        let rmemMax = try XCTUnwrap(readBack.stdout.split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) },
                                    readBack.stdout)
        XCTAssertEqual(rmemMax, 65536)
        let capped = try longPathDownload(path, peer, [])
        let (cappedVerdict, cappedEvidence, cappedBasis) = try diagnosis(capped)
        XCTAssertEqual(cappedVerdict, "client-window", "\(cappedBasis) \(cappedEvidence)")
        XCTAssertLessThanOrEqual(try XCTUnwrap(cappedEvidence["receiveBuffer"] as? Int), rmemMax,
                                 "the namespace's tcp_rmem caps the buffer")
        XCTAssertLessThanOrEqual(try number(cappedEvidence, "bodyRate"), Double(rmemMax) / roundTrip)
    }

    /// A 2,000-byte GET across a 60 ms round trip: the connect and the request's round trip are the time (its wait is
    /// half of the total, but that is the round trip, not the server): `round-trips`, at the RTT the delay line
    /// makes. A `/delay/600` answer on the same path is the server's: `server-think`, its wait at least the 600 ms.
    func testASmallGetAcrossALongPathIsRoundTripsAndADelayedAnswerIsServerThink() throws {
        let path = try NetworkPath.up(delay: "30ms")
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let small = try probe(path, [peer.url("/bytes/2000")])
        let (verdict, evidence, basis) = try diagnosis(small)
        XCTAssertEqual(verdict, "round-trips", "\(basis) \(evidence)")
        XCTAssertEqual(try number(evidence, "rtt"), 60_000, accuracy: 6_000, "the kernel's RTT against 2 x 30 ms")
        let roundTrips = try number(evidence, "roundTrips")
        XCTAssertGreaterThanOrEqual(roundTrips, 1.9, "the connect and the request: \(evidence)")
        XCTAssertLessThan(roundTrips, 2.6, "\(evidence)")

        let delayed = try probe(path, [peer.url("/delay/600")])
        let (thinkVerdict, thinkEvidence, thinkBasis) = try diagnosis(delayed)
        XCTAssertEqual(thinkVerdict, "server-think", "\(thinkBasis) \(thinkEvidence)")
        XCTAssertGreaterThanOrEqual(try number(thinkEvidence, "wait"), 600_000, "the target's 600 ms delay")
    }

    /// `--rcvbuf` refuses 0, a bare number, sizes out of range and garbage with one line naming the flag (exit 2).
    func testABadReceiveBufferIsAUsageError() throws {
        for bad in ["0", "65536", "12B", "65MiB", "big"] {
            try CLIHarness.assertFails(["probe", "--rcvbuf", bad, "http://127.0.0.1:9/"], code: .usage, mention: "--rcvbuf")
        }
    }
}
