import Foundation
import WirelensTestSupport
import XCTest

/// Captures taken at the receiver behind a lossy router (a random-drop rule between sender and capture, a path
/// that cannot reorder): every hole the capture shows is a loss, filled by a retransmission, and Wirelens must
/// call it one, as the drop rule's counter and the sender's TcpRetransSegs confirm, and tshark at least as often.
final class ReceiverSideLossTests: XCTestCase {
    /// Bytes sent one way.
    private static let size = 6_000_000
    private static let port = 5001

    /// The sender and receiver, in Python: `serve MODE HOST PORT SIZE` accepts one connection, `send MODE HOST PORT
    /// SIZE` makes it; in `upload` the client sends SIZE bytes and the server answers how many it read, in
    /// `download` the server sends SIZE bytes and the client checks it read them all.
    private static let peer = """
        import socket, sys
        role, mode, host, port, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        block = b"x" * 65536
        def send_all(sock):
            left = size
            while left > 0:
                left -= sock.send(block[:min(left, len(block))])
        def read_all(sock):
            got = 0
            while True:
                data = sock.recv(65536)
                if not data:
                    return got
                got += len(data)
        if role == "serve":
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((host, port))
            server.listen(1)
            server.settimeout(30)
            print("ready", flush=True)
            conn, _ = server.accept()
            conn.settimeout(30)
            if mode == "upload":
                conn.sendall(str(read_all(conn)).encode())
            else:
                send_all(conn)
            conn.close()
        else:
            conn = socket.create_connection((host, port), timeout=30)
            if mode == "upload":
                send_all(conn)
                conn.shutdown(socket.SHUT_WR)
                answer = b""
                while True:
                    data = conn.recv(100)
                    if not data:
                        break
                    answer += data
                assert int(answer) == size, answer
            else:
                got = read_all(conn)
                assert got == size, got
            conn.close()
        """

    /// The sender's TcpRetransSegs, and the reorderings its kernel detected (SACK, timestamps, Reno).
    private func senderCounters(_ path: NetworkPath, in namespace: String) throws -> (retransmitted: Int, reorderings: Int) {
        let tcp = try KernelCounters.read("/proc/net/snmp", row: "Tcp:", in: path, namespace: namespace)
        let ext = try KernelCounters.read("/proc/net/netstat", row: "TcpExt:", in: path, namespace: namespace)
        let reorderings = try ["TCPSACKReorder", "TCPTSReorder", "TCPRenoReorder"].map { try ext.value($0) }
        return (try tcp.value("RetransSegs"), reorderings.reduce(0, +))
    }

    private struct Figures {
        var wirelensRetransmissions: Int
        var wirelensOutOfOrder: Int
        var tshark: Int
        /// The frames tshark calls spurious retransmissions or out of order.
        var tsharkOtherLabels: Int
        var drops: Int
        var senderRetransSegs: Int
        var senderReorderings: Int
    }

    /// Sends `size` bytes one way over a path dropping 2% of the sender's packets, captured at the receiver.
    private func transfer(upload: Bool) throws -> Figures {
        let path = try NetworkPath.up(rate: "40mbit", drop: upload ? 0.02 : nil, downDrop: upload ? nil : 0.02,
                                      queue: "100ms")
        defer { path.down() }
        let mode = upload ? "upload" : "download"
        let arguments = [mode, path.serverIP, String(Self.port), String(Self.size)]
        let server = try path.process(in: path.serverNamespace, "/usr/bin/python3", ["-c", Self.peer, "serve"] + arguments)
        defer { server.kill() }
        guard server.waitForText(after: "ready", seconds: 10) != nil else {
            throw LoopbackCapture.Failure(description: "the server did not start: \(server.stderr)")
        }
        let receiver = upload ? path.serverNamespace : path.clientNamespace
        let sender = upload ? path.clientNamespace : path.serverNamespace
        let before = try senderCounters(path, in: sender)
        let capture = try LoopbackCapture.record(interface: upload ? "s0" : "c0", filter: "tcp port \(Self.port)",
                                                 options: ["-s", "96"], namespace: receiver) {
            let client = try path.run(in: path.clientNamespace, "/usr/bin/python3", ["-c", Self.peer, "send"] + arguments,
                                      timeout: 40)
            guard client.status == 0 else {
                throw LoopbackCapture.Failure(description: "the \(mode) failed: \(client.stderr)")
            }
        }
        defer { unlink(capture) }
        let after = try senderCounters(path, in: sender)
        let counters = try path.counters()

        let analysis = try ProcessRunner.run(WirelensCLI.path, ["capture", "analyze", capture, "--format", "json"],
                                             timeout: 60)
        XCTAssertEqual(analysis.status, 0, analysis.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        let frames = try TsharkOracle.values(capture, filter: "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                                             field: "frame.number")
        let otherLabels = try TsharkOracle.values(capture, filter: "tcp.analysis.spurious_retransmission || "
                                                  + "tcp.analysis.out_of_order", field: "frame.number")
        return Figures(wirelensRetransmissions: try XCTUnwrap(summary["retransmissions"] as? Int),
                       wirelensOutOfOrder: try XCTUnwrap(summary["outOfOrder"] as? Int), tshark: frames.count,
                       tsharkOtherLabels: otherLabels.count,
                       drops: upload ? counters.dropPackets : counters.downDropPackets,
                       senderRetransSegs: after.retransmitted - before.retransmitted,
                       senderReorderings: after.reorderings - before.reorderings)
    }

    /// A transfer in which the sender resent only what the drop rule dropped (at most 3 more, a tail probe or two) and
    /// its kernel saw no reordering, up to three tries. On a host whose CPUs are taken from under it (a CI run), the sender's timer fired early and
    /// resent data that had arrived (99 resends for 80 drops), and packets the router forwarded from two CPUs arrived
    /// out of order (17): a path that reorders and a sender that resends in vain are not the case this asserts, and
    /// the sender's and the drop rule's own counters say when a run was one. A capture whose timestamps the load
    /// disturbed is not one either: tshark, by its own timing rules, then calls more than a quarter of the hole fills
    /// out of order or spurious (ci14: 29 of 79, the sender's counters clean), where clean runs give about one in ten.
    private func cleanTransfer(upload: Bool) throws -> Figures {
        var figures = try transfer(upload: upload)
        for _ in 1..<3 where figures.senderRetransSegs > figures.drops + 3 || figures.senderReorderings > 0
            || figures.tsharkOtherLabels * 4 > figures.tshark + figures.tsharkOtherLabels {
            print("receiver-side loss: the sender resent in vain, saw reordering, or the capture's clock was disturbed, again: \(figures)")
            figures = try transfer(upload: upload)
        }
        return figures
    }

    /// Retransmissions at least every drop (90%: a resend can be dropped too) and at most what the sender's kernel
    /// resent, none or almost none called out of order, and at least what tshark calls retransmissions (3 less).
    /// tshark is a floor, not the count: in CI runs of this case (the sender resending exactly the drops, no
    /// reordering) it named 76 of 86 and 76 of 94 resends, where Wirelens named 84 and 93; on a quiet machine the
    /// two agree within 2.
    private func check(_ f: Figures) {
        let context = "\(f)"
        print("receiver-side loss: \(context)")
        XCTAssertGreaterThan(f.drops, 20, "the drop rule dropped packets: \(context)")
        XCTAssertGreaterThanOrEqual(f.wirelensRetransmissions, f.tshark - 3, "at least tshark's retransmissions: \(context)")
        XCTAssertLessThanOrEqual(f.wirelensOutOfOrder, max(2, f.tshark / 50), "the path cannot reorder: \(context)")
        XCTAssertGreaterThanOrEqual(Double(f.wirelensRetransmissions), Double(f.drops) * 0.9,
                                    "every drop is a hole filled by a resend: \(context)")
        XCTAssertLessThanOrEqual(f.wirelensRetransmissions, f.senderRetransSegs,
                                 "no more than the sender's kernel resent: \(context)")
    }

    /// A capture at the receiver of a path whose round trip (about 20 ms, a delay line's) the handshake estimates a
    /// little long (21 ms: its pure ACK was lost, the first data segment stands in): the resend of a hole the
    /// receiver asked for with three duplicate ACKs arrives 20.2 ms after the data beyond it, a round trip, and is a
    /// retransmission, as tshark calls it (a fast retransmission); a segment 1 ms late, after one duplicate ACK, is
    /// out of order, as tshark calls it too.
    func testAResendAboutOneRoundTripAfterTheDuplicateACKsIsARetransmission() throws {
        var capture = CraftedCapture(clientPort: 40000, serverPort: 5001)
        let c: UInt32 = 1000, s: UInt32 = 9000
        let a = [UInt8](repeating: 65, count: 1000)
        capture.send(seq: c, ack: 0, flags: .syn)
        capture.send(seq: s, ack: c + 1, flags: [.syn, .ack], fromServer: true, after: 30)
        capture.send(seq: c + 1, ack: s + 1, flags: .ack, payload: a, after: 21_000)
        capture.send(seq: s + 1, ack: c + 1001, flags: .ack, fromServer: true, after: 10)
        // 1001..2001 is lost; three segments beyond it, each answered by a duplicate ACK of 1001.
        for index in 1...3 {
            capture.send(seq: c + 1 + UInt32(index + 1) * 1000, ack: s + 1, flags: .ack, payload: a, after: 300)
            capture.send(seq: s + 1, ack: c + 1001, flags: .ack, fromServer: true, after: 10)
        }
        // The resend: 20.2 ms after the first segment beyond the hole.
        capture.send(seq: c + 1001, ack: s + 1, flags: .ack, payload: a, after: 20_200 - 620)
        capture.send(seq: s + 1, ack: c + 5001, flags: .ack, fromServer: true, after: 10)
        // 5001..6001 is late: 6001..7001 arrives, one duplicate ACK of 5001, and 5001..6001 1 ms later.
        capture.send(seq: c + 6001, ack: s + 1, flags: .ack, payload: a, after: 300)
        capture.send(seq: s + 1, ack: c + 5001, flags: .ack, fromServer: true, after: 10)
        capture.send(seq: c + 5001, ack: s + 1, flags: .ack, payload: a, after: 990)
        capture.send(seq: s + 1, ack: c + 7001, flags: .ack, fromServer: true, after: 10)
        let path = LoopbackCapture.temporaryPath("resend-after-dupacks.pcap")
        capture.write(to: path)
        defer { unlink(path) }

        let retransmitted = try TsharkOracle.values(path, filter: "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                                                    field: "tcp.seq_raw")
        let reordered = try TsharkOracle.values(path, filter: "tcp.analysis.out_of_order", field: "tcp.seq_raw")
        XCTAssertEqual(retransmitted, ["\(c + 1001)"], "tshark: the resend")
        XCTAssertEqual(reordered, ["\(c + 5001)"], "tshark: the late segment")
        let connection = try XCTUnwrap(capture.report().connections.first)
        XCTAssertEqual(connection.handshakeTime, 21_030)
        XCTAssertEqual(connection.clientToServer.retransmissions, retransmitted.count)
        XCTAssertEqual(connection.clientToServer.outOfOrder, reordered.count)
    }

    /// A handshake whose first SYN/ACK was lost (the drop rule of the lossy-path cases took one in a CI run): the
    /// client sends its SYN again a second later, and the path's round trip is that SYN's to the ACK (60 µs, tshark's
    /// `tcp.analysis.initial_rtt`), not the first SYN's (a second). A hole then filled 20 ms after the data beyond
    /// it, after one duplicate ACK, is a retransmission, as tshark calls it: measured against the second-long
    /// handshake, it was taken for a late segment (14 of 84 in that run).
    func testAHoleFilledAfterAHandshakeWhoseSYNWasSentAgainIsARetransmission() throws {
        var capture = CraftedCapture(clientPort: 40001, serverPort: 5001)
        let c: UInt32 = 5000, s: UInt32 = 70000
        let a = [UInt8](repeating: 66, count: 1000)
        capture.send(seq: c, ack: 0, flags: .syn)
        capture.send(seq: c, ack: 0, flags: .syn, after: 1_000_000)
        capture.send(seq: s, ack: c + 1, flags: [.syn, .ack], fromServer: true, after: 40)
        capture.send(seq: c + 1, ack: s + 1, flags: .ack, after: 20)
        capture.send(seq: s + 1, ack: c + 1, flags: .ack, payload: a, fromServer: true, after: 100)
        // s+1001..s+2001 is lost; the segment beyond it is answered by one duplicate ACK of s+1001.
        capture.send(seq: s + 2001, ack: c + 1, flags: .ack, payload: a, fromServer: true, after: 300)
        capture.send(seq: c + 1, ack: s + 1001, flags: .ack, after: 10)
        capture.send(seq: s + 1001, ack: c + 1, flags: .ack, payload: a, fromServer: true, after: 20_000)
        capture.send(seq: c + 1, ack: s + 3001, flags: .ack, after: 10)
        let path = LoopbackCapture.temporaryPath("syn-sent-again.pcap")
        capture.write(to: path)
        defer { unlink(path) }

        let initialRTT = try TsharkOracle.values(path, filter: "tcp.analysis.initial_rtt", field: "tcp.analysis.initial_rtt")
        let retransmitted = try TsharkOracle.values(path, filter: "tcp.analysis.retransmission && tcp.len > 0",
                                                    field: "tcp.seq_raw")
        let reordered = try TsharkOracle.values(path, filter: "tcp.analysis.out_of_order", field: "tcp.seq_raw")
        XCTAssertEqual(retransmitted, ["\(s + 1001)"], "tshark: the hole's fill")
        XCTAssertEqual(reordered, [], "tshark: nothing late")
        let rtt = try XCTUnwrap(initialRTT.first.flatMap(Double.init), "tshark gave no initial_rtt")
        let connection = try XCTUnwrap(capture.report().connections.first)
        XCTAssertEqual(Double(try XCTUnwrap(connection.handshakeRoundTrip)), rtt * 1e6, accuracy: 1)
        XCTAssertEqual(connection.handshakeTime, 1_000_060, "the connect phase keeps the first SYN's wait")
        XCTAssertEqual(connection.serverToClient.retransmissions, retransmitted.count)
        XCTAssertEqual(connection.serverToClient.outOfOrder, reordered.count)
    }

    func testAnUploadCapturedAtTheServerBehindALossyUplinkCountsRetransmissionsNotReordering() throws {
        check(try cleanTransfer(upload: true))
    }

    func testADownloadCapturedAtTheClientBehindALossyDownlinkCountsRetransmissionsNotReordering() throws {
        check(try cleanTransfer(upload: false))
    }
}
