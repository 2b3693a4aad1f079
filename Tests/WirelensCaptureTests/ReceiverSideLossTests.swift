import Foundation
import WirelensTestSupport
import XCTest

/// Captures taken at the receiver behind a lossy router (a random-drop rule between sender and capture, a path
/// that cannot reorder): every hole the capture shows is a loss, filled by a retransmission, and Wirelens must
/// call it one, as tshark does, and as the drop rule's counter and the sender's TcpRetransSegs confirm.
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

    /// The sender's TcpRetransSegs (its namespace's /proc/net/snmp).
    private func retransSegs(_ path: NetworkPath, in namespace: String) throws -> Int {
        let outcome = try path.run(in: namespace, "/bin/cat", ["/proc/net/snmp"], timeout: 10)
        let lines = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("Tcp:") }
        guard lines.count == 2 else { throw LoopbackCapture.Failure(description: "no Tcp lines: \(outcome.stdout)") }
        let names = lines[0].split(separator: " "), values = lines[1].split(separator: " ")
        guard let i = names.firstIndex(of: "RetransSegs"), let value = Int(values[i]) else {
            throw LoopbackCapture.Failure(description: "no RetransSegs: \(lines)")
        }
        return value
    }

    private struct Figures {
        var wirelensRetransmissions: Int
        var wirelensOutOfOrder: Int
        var tshark: Int
        var drops: Int
        var senderRetransSegs: Int
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
        let before = try retransSegs(path, in: sender)
        let capture = try LoopbackCapture.record(interface: upload ? "s0" : "c0", filter: "tcp port \(Self.port)",
                                                 options: ["-s", "96"], namespace: receiver) {
            let client = try path.run(in: path.clientNamespace, "/usr/bin/python3", ["-c", Self.peer, "send"] + arguments,
                                      timeout: 40)
            guard client.status == 0 else {
                throw LoopbackCapture.Failure(description: "the \(mode) failed: \(client.stderr)")
            }
        }
        defer { unlink(capture) }
        let retrans = try retransSegs(path, in: sender) - before
        let counters = try path.counters()

        let analysis = try ProcessRunner.run(WirelensCLI.path, ["capture", "analyze", capture, "--format", "json"],
                                             timeout: 60)
        XCTAssertEqual(analysis.status, 0, analysis.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(analysis.stdout.utf8)) as? [String: Any])
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        let frames = try TsharkOracle.values(capture, filter: "tcp.analysis.retransmission || tcp.analysis.fast_retransmission",
                                             field: "frame.number")
        return Figures(wirelensRetransmissions: try XCTUnwrap(summary["retransmissions"] as? Int),
                       wirelensOutOfOrder: try XCTUnwrap(summary["outOfOrder"] as? Int), tshark: frames.count,
                       drops: upload ? counters.dropPackets : counters.downDropPackets, senderRetransSegs: retrans)
    }

    /// Retransmissions within 5% (at least 3) of tshark's, none or almost none called out of order, at least 90% of
    /// the drops and at most what the sender's kernel resent.
    private func check(_ f: Figures) {
        let context = "\(f)"
        print("receiver-side loss: \(context)")
        XCTAssertGreaterThan(f.drops, 20, "the drop rule dropped packets: \(context)")
        XCTAssertEqual(Double(f.wirelensRetransmissions), Double(f.tshark), accuracy: max(3, Double(f.tshark) * 0.05),
                       "retransmissions against tshark's: \(context)")
        XCTAssertLessThanOrEqual(f.wirelensOutOfOrder, max(2, f.tshark / 50), "the path cannot reorder: \(context)")
        XCTAssertGreaterThanOrEqual(Double(f.wirelensRetransmissions), Double(f.drops) * 0.9,
                                    "every drop is a hole filled by a resend: \(context)")
        XCTAssertLessThanOrEqual(f.wirelensRetransmissions, f.senderRetransSegs,
                                 "no more than the sender's kernel resent: \(context)")
    }

    func testAnUploadCapturedAtTheServerBehindALossyUplinkCountsRetransmissionsNotReordering() throws {
        check(try transfer(upload: true))
    }

    func testADownloadCapturedAtTheClientBehindALossyDownlinkCountsRetransmissionsNotReordering() throws {
        check(try transfer(upload: false))
    }
}
