import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// The delay line of scripts/netpath.sh (`--delay`) and the verdict it makes possible: `round-trips`, a short upload
/// over a long path. The delay is checked against the kernel of a client the test runs itself, and the verdict's
/// round-trip time against the delay configured. Needs root (CI runs as root): without it each test fails with the
/// reason.
final class DelayedPathVerdictTests: XCTestCase {
    /// The delay each way, and the round trip it makes (the path adds well under a millisecond without it).
    private static let delay = "20ms"
    private static let roundTripMicros = 40_000.0

    /// The kernel's first RTT sample (`tcpi_rtt` right after `connect`: SYN to SYN/ACK) of `count` connections from
    /// the client namespace to `port` on the server, read by python in the namespace (not by Wirelens), µs.
    private func handshakeRTTs(_ path: NetworkPath, port: Int, count: Int) throws -> [Double] {
        let script = """
            import socket, struct, sys
            for _ in range(\(count)):
                c = socket.create_connection(("\(path.serverIP)", \(port)), timeout=5)
                info = c.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
                print(struct.unpack_from("I", info, 68)[0])  # tcpi_rtt, µs (linux/tcp.h)
                c.close()
            """
        let outcome = try path.run(in: path.clientNamespace, "/usr/bin/env", ["python3", "-c", script], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout.split(separator: "\n").compactMap { Double($0) }
    }

    /// Every connection's handshake takes one round trip through the delay line: the median twice the delay within
    /// 10%, none shorter than 95% of it (the line never lets a packet through early), none longer than 1.5 times it (a
    /// late one is the line's own process waiting for a CPU: one of five came 13% late in a CI run on a busy machine,
    /// one of five 91 ms late in another). A batch with a late handshake and none early is measured again, up to three
    /// batches: a line that is always late still fails, an early one fails at once.
    func testTheDelayLineHoldsEachPacketItsDelayEachWay() throws {
        let path = try NetworkPath.up(delay: Self.delay)
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        var batches: [[Double]] = []
        for _ in 0..<3 {
            let rtts = try handshakeRTTs(path, port: peer.port, count: 5)
            batches.append(rtts)
            let early = rtts.contains { $0 < Self.roundTripMicros * 0.95 }
            let late = rtts.contains { $0 > Self.roundTripMicros * 1.5 }
            if early || !late { break }
        }
        let rtts = try XCTUnwrap(batches.last)
        XCTAssertEqual(rtts.count, 5)
        let median = rtts.sorted()[rtts.count / 2]
        XCTAssertEqual(median, Self.roundTripMicros, accuracy: Self.roundTripMicros * 0.10,
                       "the kernel's handshake RTT against 2 x \(Self.delay): \(batches)")
        for rtt in rtts {
            XCTAssertGreaterThanOrEqual(rtt, Self.roundTripMicros * 0.95, "never early: \(batches)")
            XCTAssertLessThanOrEqual(rtt, Self.roundTripMicros * 1.5, "\(batches)")
        }
        // The same path without the delay line is not delayed: the 40 ms come from the line, not from the router.
        let plain = try NetworkPath.up()
        defer { plain.down() }
        let plainPeer = try SegmentPeer.start(in: plain)
        defer { plainPeer.stop() }
        let fast = try handshakeRTTs(plain, port: plainPeer.port, count: 3)
        XCTAssertEqual(fast.count, 3)
        XCTAssertLessThan(fast.max() ?? .infinity, Self.roundTripMicros * 0.10, "\(fast)")
    }

    /// An 8,000-byte upload (inside the first congestion window: 10 segments) over a 40 ms round trip, without
    /// `Expect: 100-continue` (libcurl 7.88 sends it with every PUT, a third round trip): the handshake and one
    /// exchange take the time, no window had time to matter, and the verdict says so with the RTT the
    /// kernel measured, the delay configured.
    func testAShortUploadOverALongPathIsRoundTrips() throws {
        let path = try NetworkPath.up(delay: Self.delay)
        defer { path.down() }
        let peer = try SegmentPeer.start(in: path)
        defer { peer.stop() }
        let report = CLIHarness.temporaryPath("rt.json")
        defer { unlink(report) }
        let outcome = try path.run(in: path.clientNamespace, WirelensCLI.path,
                                   ["probe", "--upload-size", "8000", "--no-expect-100", peer.uploadURL("rt"), "--format", "json",
                                    "--report", report, "-q"], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        XCTAssertEqual(verdict, "round-trips", "\(evidence)")
        let rtt = try XCTUnwrap(evidence["rtt"] as? Double)
        XCTAssertEqual(rtt, Self.roundTripMicros, accuracy: Self.roundTripMicros * 0.10,
                       "the kernel's smoothed RTT against 2 x \(Self.delay)")
        let handshake = try XCTUnwrap((tx["tcp"] as? [String: Any])?["handshakeRTT"] as? Double)
        XCTAssertEqual(handshake, Self.roundTripMicros, accuracy: Self.roundTripMicros * 0.10)
        // A fresh connection's upload without `Expect: 100-continue` is two round trips: SYN to SYN/ACK, then the
        // request to the answer (the body fits the first window, so no third). The server and client add little.
        let roundTrips = try XCTUnwrap(evidence["roundTrips"] as? Double)
        XCTAssertGreaterThanOrEqual(roundTrips, 1.9, "\(evidence)")
        XCTAssertLessThan(roundTrips, 2.5, "\(evidence)")
    }
}
