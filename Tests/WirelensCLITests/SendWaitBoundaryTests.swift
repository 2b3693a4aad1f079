import Foundation
import WirelensTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The send/wait boundary of uploads against the server's own interface: the target runs in a network namespace
/// behind a router, tcpdump records inside that namespace (the namespaces share CLOCK_REALTIME with the client), and
/// tshark's reading of the capture says when each body's last byte arrived and when the response's first byte left.
/// Every upload's `requestEnd` must fall within max(2 ms, 2% of its send phase) of that arrival (plus, for flows
/// sharing a queue, the allowance docs/why-is-it-slow.md states), and its wait within the same bound of the server's
/// gap. Needs root (CI runs as root): without it each test fails with the reason.
final class SendWaitBoundaryTests: XCTestCase {
    /// One exchange on the server's interface: when the request's last byte arrived and the response's first left
    /// (epoch seconds).
    private struct ServerExchange {
        var lastRequestByteIn: Double
        var firstResponseByteOut: Double
    }

    /// One transaction of a report: its connection's port, request start and end, response start (epoch seconds),
    /// its send phase (ms) and body size.
    private struct Transaction {
        var localPort: Int
        var requestStart: Double
        var requestEnd: Double
        var responseStart: Double
        var sendMs: Double
        var waitMs: Double
        var bodyBytes: Int
        /// The server's gap (ms) from its capture, once matched.
        var serverGapMs = 0.0
        /// What the boundary may miss beyond the bound for one flow (ms): its report's allowance.
        var allowanceMs = 0.0
    }

    /// An 8 Mbit/s uplink with a 50 ms queue, a target that answers 30 ms after a body's end: four 1 MiB PUTs on one
    /// connection and a segmented upload of 2 MiB in 512 KiB segments. The server holds the ACK of a final odd segment
    /// until its answer or its delayed-ACK timer, so "acknowledged" is up to 30-40 ms after "arrived".
    func testUploadsOverAQueuedPathEndWhenTheLastByteArrived() throws {
        let path = try NetworkPath.up(rate: "8mbit", queue: "50ms")
        defer { path.down() }
        let peer = try SegmentPeer.start(partDelayMs: 30, in: path)
        defer { peer.stop() }
        let file = try Self.patternFile(bytes: 2 << 20)
        defer { unlink(file) }
        var reports: [String] = []
        defer { reports.forEach { unlink($0) } }
        let capture = try recordServer(path, port: peer.port) {
            reports.append(try run(path, ["probe", "--upload-size", "1MiB", "--repeat", "4", peer.uploadURL("puts")]))
            reports.append(try run(path, ["upload", file, peer.uploadURL("segments"), "--segment-size", "512KiB",
                                          "--parallel", "1", "--no-journal"]))
        }
        defer { unlink(capture) }
        let checked = try assertBoundaries(reports: reports, capture: capture, serverPort: peer.port)
        XCTAssertEqual(checked.count, 8, "4 PUTs and 4 segments")
    }

    /// Issue 27 item 5: 1, 4 and 8 segments in flight (`--parallel`) sharing one 5 Mbit/s uplink with a 50 ms
    /// queue, a target answering 30 ms after each body: 2 MiB in 256 KiB segments each time, every segment's
    /// `requestEnd` within the bound of `assertBoundaries` of its last byte's arrival in the server's capture, widened
    /// for a shared queue by what docs/why-is-it-slow.md states: half the queue's delay (a connection whose minimum
    /// RTT includes queueing overstates the ACK's way back) and, for N in flight, N - 1 full segments' time at the
    /// link's rate (the others' segments between a flow's last two, when the server holds the final ACK).
    func testSegmentsSharingAQueueEndWhenTheirLastByteArrived() throws {
        let queueMs = 50.0, segmentMs = 1514.0 * 8 / 5e6 * 1000
        let path = try NetworkPath.up(rate: "5mbit", queue: "\(Int(queueMs))ms")
        defer { path.down() }
        let peer = try SegmentPeer.start(partDelayMs: 30, in: path)
        defer { peer.stop() }
        let file = try Self.patternFile(bytes: 2 << 20)
        defer { unlink(file) }
        var reports: [String] = [], allowances: [Double] = []
        defer { reports.forEach { unlink($0) } }
        let capture = try recordServer(path, port: peer.port) {
            for parallel in [1, 4, 8] {
                reports.append(try run(path, ["upload", file, peer.uploadURL("shared\(parallel)"), "--segment-size",
                                              "256KiB", "--parallel", String(parallel), "--no-journal"]))
                allowances.append(queueMs / 2 + Double(parallel - 1) * segmentMs)
            }
        }
        defer { unlink(capture) }
        // The wait is not checked here: with 8 transfers on a busy machine the client saw a response's first byte up
        // to 97 ms after the server sent it (responseStart, not the boundary; printed for each upload).
        let checked = try assertBoundaries(reports: reports, allowances: allowances, checksWait: false,
                                           capture: capture, serverPort: peer.port)
        XCTAssertEqual(checked.count, 24, "8 segments at each of 1, 4 and 8 in flight")
    }

    /// The shaped target of the seed demo (720 KB/s per connection, a receive buffer of 20 ms of it, 50 ms latency)
    /// over an unshaped path: it acknowledges what it read, not what arrived, so "acknowledged" came 10-21 ms after
    /// "arrived" and varied from segment to segment. Each wait is within item 2's bound of its own server gap
    /// (`assertBoundaries`), and identical segments show the same wait within 5 ms, plus what the server's own gap
    /// varied.
    func testIdenticalSegmentsToTheShapedTargetWaitAlike() throws {
        let path = try NetworkPath.up()
        defer { path.down() }
        let peer = try SegmentPeer.start(partDelayMs: 50, rate: 720_000, in: path)
        defer { peer.stop() }
        let file = try Self.patternFile(bytes: 2 << 20)
        defer { unlink(file) }
        var reports: [String] = []
        defer { reports.forEach { unlink($0) } }
        let capture = try recordServer(path, port: peer.port) {
            reports.append(try run(path, ["upload", file, peer.uploadURL("shaped"), "--segment-size", "512KiB",
                                          "--parallel", "1", "--no-journal"]))
        }
        defer { unlink(capture) }
        let checked = try assertBoundaries(reports: reports, capture: capture, serverPort: peer.port)
        XCTAssertEqual(checked.count, 4)
        // The server's own gap is not the same for each segment (the first, on a new upload and connection, took about
        // 12 ms longer in its capture; a loaded machine adds more): the waits may differ by 5 ms plus what the gaps
        // differed. (main before the estimator: waits of 14 and 50 ms for gaps within 2 ms of each other.)
        func spread(_ values: [Double]) -> Double { (values.max() ?? 0) - (values.min() ?? 0) }
        let waits = checked.map(\.waitMs), gaps = checked.map(\.serverGapMs)
        XCTAssertLessThanOrEqual(spread(waits), 5 + spread(gaps),
                                 "identical segments: waits \(waits) ms against the server's gaps \(gaps) ms")
    }

    // MARK: Helpers

    /// Runs `wirelens ARGUMENTS` in the client namespace with a JSON report; returns the report's path.
    private func run(_ path: NetworkPath, _ arguments: [String]) throws -> String {
        let report = CLIHarness.temporaryPath("boundary.json")
        let outcome = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                   arguments + ["--format", "json", "--report", report, "-q"], timeout: 60)
        XCTAssertEqual(outcome.status, 0, "\(arguments): \(outcome.stderr)")
        return report
    }

    /// Checks every upload of the reports (bodies of 64 KiB or more) against the capture, each within
    /// max(2 ms, 2% of its send phase) plus its report's allowance (ms; none when nil), and its wait within the same
    /// bound of the server's gap unless `checksWait` is false; returns them.
    private func assertBoundaries(reports: [String], allowances: [Double]? = nil, checksWait: Bool = true,
                                  capture: String, serverPort: Int,
                                  file: StaticString = #filePath, line: UInt = #line) throws -> [Transaction] {
        let exchanges = try Self.serverExchanges(capture, serverPort: serverPort)
        var byPort: [Int: [Transaction]] = [:]
        for (index, report) in reports.enumerated() {
            for var tx in try Self.transactions(report) {
                tx.allowanceMs = allowances?[index] ?? 0
                byPort[tx.localPort, default: []].append(tx)
            }
        }
        var checked: [Transaction] = []
        var worst = 0.0
        for (port, list) in byPort {
            let seen = try XCTUnwrap(exchanges[port], "no exchange on client port \(port) in the capture", file: file, line: line)
            let ordered = list.sorted { $0.requestStart < $1.requestStart }
            XCTAssertEqual(ordered.count, seen.count, "exchanges on port \(port)", file: file, line: line)
            for (found, wire) in zip(ordered, seen) where found.bodyBytes >= 64 << 10 {
                var tx = found
                let bound = max(2, 0.02 * tx.sendMs) + tx.allowanceMs
                let endError = (tx.requestEnd - wire.lastRequestByteIn) * 1000
                let gap = (wire.firstResponseByteOut - wire.lastRequestByteIn) * 1000
                tx.serverGapMs = gap
                worst = max(worst, abs(endError))
                print("SendWaitBoundaryTests: port \(port) send \(tx.sendMs) ms, requestEnd \(endError) ms from the "
                      + "arrival, wait \(tx.waitMs) ms against the server's gap \(gap) ms")
                XCTAssertLessThanOrEqual(abs(endError), bound,
                                         "port \(port): requestEnd \(endError) ms from the last body byte's arrival "
                                         + "(send \(tx.sendMs) ms)", file: file, line: line)
                if checksWait {
                    XCTAssertLessThanOrEqual(abs(tx.waitMs - gap), bound, "port \(port): wait \(tx.waitMs) ms, the "
                                             + "server's gap \(gap) ms", file: file, line: line)
                }
                checked.append(tx)
            }
        }
        print("SendWaitBoundaryTests: \(checked.count) uploads, largest |requestEnd - arrival| \(worst) ms")
        return checked.sorted { $0.requestStart < $1.requestStart }
    }

    /// The transactions of a JSON report, all tasks.
    private static func transactions(_ report: String) throws -> [Transaction] {
        let data = try Data(contentsOf: URL(fileURLWithPath: report))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        var result: [Transaction] = []
        for task in json["tasks"] as? [[String: Any]] ?? [] {
            for tx in task["transactions"] as? [[String: Any]] ?? [] {
                let stamps = try XCTUnwrap(tx["timestamps"] as? [String: Any])
                let phases = try XCTUnwrap(tx["phasesMs"] as? [String: Any])
                func instant(_ key: String) throws -> Double {
                    try XCTUnwrap(Self.epochSeconds(stamps[key] as? String), "\(key) in \(stamps)")
                }
                result.append(Transaction(
                    localPort: try XCTUnwrap(tx["localPort"] as? Int), requestStart: try instant("requestStart"),
                    requestEnd: try instant("requestEnd"), responseStart: try instant("responseStart"),
                    sendMs: try XCTUnwrap(phases["send"] as? Double), waitMs: try XCTUnwrap(phases["wait"] as? Double),
                    bodyBytes: tx["requestBodyBytes"] as? Int ?? 0))
            }
        }
        return result
    }

    /// "2026-11-24T01:57:02.677123Z" as seconds since the epoch, to the microsecond.
    private static func epochSeconds(_ text: String?) -> Double? {
        guard let text, text.hasSuffix("Z") else { return nil }
        let parts = text.dropLast().split(separator: ".")
        let formatter = ISO8601DateFormatter()
        guard let whole = formatter.date(from: parts[0] + "Z") else { return nil }
        let fraction = parts.count > 1 ? Double("0." + parts[1]) ?? 0 : 0
        return whole.timeIntervalSince1970 + fraction
    }

    /// tshark's view of the server's interface: per client port, when the server had each request whole and when its
    /// response's first byte left, in order. The request is whole when the bytes in order reach the highest one seen
    /// (after a loss, that is the retransmission filling the last hole, not the first copy of the last byte); a
    /// response is a server segment starting with "HTTP/" after new request bytes; an interim 100 Continue does not
    /// count.
    private static func serverExchanges(_ capture: String, serverPort: Int) throws -> [Int: [ServerExchange]] {
        let outcome = try ProcessRunner.run(
            "/usr/bin/tshark", ["-r", capture, "-o", "tcp.relative_sequence_numbers:TRUE", "-T", "fields", "-E",
                                "separator=|", "-e", "frame.time_epoch", "-e", "tcp.srcport", "-e", "tcp.dstport",
                                "-e", "tcp.seq", "-e", "tcp.len", "-e", "tcp.payload"], timeout: 60)
        guard outcome.status == 0 else { throw TestServerError(message: "tshark failed: \(outcome.stderr)") }
        struct Flow {
            /// The end of the bytes received in order, and the segments received beyond it.
            var inOrder = 1
            var beyond: [Range<Int>] = []
            var wholeAt: Double?
            var answered = true
            var exchanges: [ServerExchange] = []
        }
        var flows: [Int: Flow] = [:]
        for line in outcome.stdout.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false)
            guard f.count >= 5, let at = Double(f[0]), let source = Int(f[1]), let destination = Int(f[2]),
                  let seq = Int(f[3]), let length = Int(f[4]), length > 0 else { continue }
            let payload = f.count > 5 ? f[5] : ""
            if destination == serverPort {
                var flow = flows[source] ?? Flow()
                flow.beyond.append(seq..<seq + length)
                var moved = false
                while let next = flow.beyond.filter({ $0.contains(flow.inOrder) }).map(\.upperBound).max() {
                    flow.inOrder = next
                    moved = true
                }
                flow.beyond.removeAll { $0.upperBound <= flow.inOrder }
                if moved {
                    flow.wholeAt = at
                    flow.answered = false
                }
                flows[source] = flow
            } else if source == serverPort, var flow = flows[destination] {
                // "HTTP/" is 485454502f; "HTTP/1.1 100" is an interim answer.
                guard payload.hasPrefix("485454502f"), !payload.hasPrefix("485454502f312e3120313030"),
                      !flow.answered, flow.beyond.isEmpty, let whole = flow.wholeAt else { continue }
                flow.exchanges.append(ServerExchange(lastRequestByteIn: whole, firstResponseByteOut: at))
                flow.answered = true
                flows[destination] = flow
            }
        }
        return flows.mapValues(\.exchanges)
    }

    /// Records the server's interface (s0 in the server namespace) while `body` runs; returns the capture's path.
    private func recordServer(_ path: NetworkPath, port: Int, during body: () throws -> Void) throws -> String {
        let capture = CLIHarness.temporaryPath("server.pcap")
        // Immediate mode, or packets wait in the kernel's ring and SIGINT loses them; 200 bytes hold every header
        // and the first bytes of each payload. Released (SIGKILL) if anything below throws.
        let dump = try path.process(in: path.serverNamespace, "/usr/bin/tcpdump", [
            "-i", "s0", "-n", "-U", "--immediate-mode", "-B", "32768", "-s", "200", "-w", capture, "tcp port \(port)"])
        guard dump.waitForText(after: "listening on", seconds: 5) != nil else {
            throw TestServerError(message: "tcpdump did not listen in the server namespace within 5 s")
        }
        try body()
        usleep(200_000)
        let status = dump.stop(signal: SIGINT, seconds: 5)
        let text = dump.stderr
        guard status == 0 else { throw TestServerError(message: "tcpdump ended with \(status.map(String.init) ?? "no exit"): \(text)") }
        if let dropped = text.split(separator: "\n").first(where: { $0.contains("dropped by kernel") }), !dropped.hasPrefix("0 ") {
            throw TestServerError(message: "tcpdump's kernel buffer dropped packets: \(dropped)")
        }
        return capture
    }

    /// A file of `bytes` pattern bytes.
    private static func patternFile(bytes: Int) throws -> String {
        let file = CLIHarness.temporaryPath("boundary.bin")
        try Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }).write(to: URL(fileURLWithPath: file))
        return file
    }
}
