import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// The kernel's handshake RTT of each new connection against SYN to SYN/ACK in a capture made during the run.
final class HandshakeRTTTests: XCTestCase {
    func testHandshakeRTTIsTheWiresSYNToSYNACK() throws {
        let peer = try SegmentPeer.start(partDelayMs: 5)
        defer { peer.stop() }
        let report = LoopbackCapture.temporaryPath("probe.json")
        defer { unlink(report) }
        let capture = try LoopbackCapture.record(filter: "tcp port \(peer.port)") {
            let outcome = try WirelensCLI.run(["probe", peer.url("/bytes/1000"), "--repeat", "6", "--no-reuse",
                                               "--format", "json", "--report", report, "-q"], timeout: 60)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
        }
        defer { unlink(capture) }
        let wire = try TsharkOracle.handshakeTimes(capture, serverPort: peer.port)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let transactions = (json["tasks"] as? [[String: Any]] ?? []).flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(transactions.count, 6)
        var outliers: [String] = []
        for tx in transactions {
            let port = try XCTUnwrap(tx["localPort"] as? Int)
            let rtt = try XCTUnwrap((tx["tcp"] as? [String: Any])?["handshakeRTT"] as? Int, "a new connection has one")
            let onWire = try XCTUnwrap(wire[port], "the capture holds the handshake of port \(port)")
            XCTAssertNotNil(onWire.ack, "the capture holds the client's ACK of port \(port)")
            let bound = max(100, onWire.synAck / 10)
            XCTAssertGreaterThanOrEqual(Int64(rtt), onWire.synAck - bound,
                                        "kernel \(rtt) µs against SYN to SYN/ACK \(onWire.synAck) µs on port \(port)")
            // The kernel's sample ends when the client's stack handles the SYN/ACK, and the ACK it sends then marks
            // that moment on the wire: a host too busy to handle the SYN/ACK at once (this shared machine under load)
            // delays both, and only then may the sample pass SYN to SYN/ACK by more than the bound.
            let late = (onWire.ack ?? onWire.synAck) + 100
            if Int64(rtt) > max(onWire.synAck + bound, late) {
                outliers.append("kernel \(rtt) µs against SYN to SYN/ACK \(onWire.synAck) µs, to the client's ACK "
                                + "\(onWire.ack.map(String.init) ?? "-") µs, on port \(port)")
            }
        }
        // The sample starts when the SYN is stamped, before it reaches the loopback tap the capture reads: a thread
        // preempted in between (a CI run: 671 µs against 17 µs on the wire, once in six) starts it early, unseen on
        // the wire. One such connection in six is the host's; two are not.
        XCTAssertLessThanOrEqual(outliers.count, 1, "\(outliers)")
    }

    func testAReusedConnectionHasNoHandshakeRTT() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let outcome = try WirelensCLI.run(["probe", peer.url("/bytes/100"), "--repeat", "2", "--format", "json", "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let transactions = (json["tasks"] as? [[String: Any]] ?? []).flatMap { $0["transactions"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(transactions.count, 2)
        XCTAssertEqual(transactions.map { $0["reusedConnection"] as? Bool }, [false, true])
        XCTAssertNotNil((transactions[0]["tcp"] as? [String: Any])?["handshakeRTT"] as? Int)
        XCTAssertTrue((transactions[1]["tcp"] as? [String: Any])?["handshakeRTT"] is NSNull, "a reused connection made no handshake")
    }
}
