import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensCapture

/// The most bytes in flight per direction, the peer's window then and the largest window each side advertised, on
/// captures built frame by frame (with their handshake, and cut mid-stream), against tshark's
/// `tcp.analysis.bytes_in_flight` and its calculated `tcp.window_size` on the same frames.
final class InFlightTests: XCTestCase {
    private let c: UInt32 = 1000, s: UInt32 = 50_000
    private let block = [UInt8](repeating: 66, count: 1000)

    /// The server's data and the client's ACKs of a download, after `handshake` (or none: cut mid-stream).
    private func download(handshake: Bool) -> CraftedCapture {
        var capture = CraftedCapture(clientPort: 40000, serverPort: 80)
        func client(ack: UInt32, window: UInt16, scale: UInt8? = nil, flags: TCPFlags = .ack) {
            capture.add(capture.builder.frame(seq: c + 1, ack: ack, flags: flags, window: window, windowScale: scale))
        }
        func server(_ offset: UInt32) {
            capture.add(capture.builder.frame(seq: s + 1 + offset, ack: c + 1, flags: .ack, window: 500, payload: block,
                                              reverse: true))
        }
        if handshake {
            capture.add(capture.builder.frame(seq: c, flags: .syn, window: 64240, windowScale: 7))
            capture.add(capture.builder.frame(seq: s, ack: c + 1, flags: [.syn, .ack], window: 65160, windowScale: 7,
                                              reverse: true))
            client(ack: s + 1, window: 200)
        } else {
            // Cut mid-stream: the capture's first packet is the server's data.
            server(0)
            client(ack: s + 1, window: 200)
        }
        // Four segments before an ACK (4000 bytes in flight), an ACK of 2000 with a smaller window, two more
        // segments (4000 again), an ACK of all with a larger window, one more segment.
        for offset in stride(from: handshake ? 0 : 1000, to: 4000, by: 1000) { server(UInt32(offset)) }
        client(ack: s + 2001, window: 100)
        server(4000)
        server(5000)
        client(ack: s + 6001, window: 300)
        server(6000)
        client(ack: s + 7001, window: 300)
        return capture
    }

    private func tshark(_ capture: CraftedCapture) throws -> (inFlight: Int?, clientWindow: Int?) {
        let path = LoopbackCapture.temporaryPath("in-flight.pcap")
        capture.write(to: path)
        defer { unlink(path) }
        let inFlight = try TsharkOracle.values(path, filter: "tcp.srcport == 80", field: "tcp.analysis.bytes_in_flight")
            .compactMap { Int($0) }.max()
        let windows = try TsharkOracle.values(path, filter: "tcp.srcport == 40000 && tcp.flags.syn == 0",
                                              field: "tcp.window_size").compactMap { Int($0) }.max()
        return (inFlight, windows)
    }

    func testACapturedHandshakeGivesTheMostInFlightWithTheWindowThenAndTheLargestWindow() throws {
        var capture = download(handshake: true)
        let oracle = try tshark(capture)
        let connection = try XCTUnwrap(capture.report().connections.first)
        let data = connection.serverToClient, acks = connection.clientToServer
        XCTAssertEqual(oracle.inFlight, 4000, "tshark's bytes in flight")
        XCTAssertEqual(data.inFlightMax, oracle.inFlight.map(Int64.init))
        XCTAssertEqual(data.windowAtInFlightMax, 200 << 7, "the window of the client's last ACK then")
        XCTAssertEqual(acks.advertisedWindowMax, oracle.clientWindow.map(Int64.init), "tshark's largest scaled window")
        XCTAssertEqual(acks.advertisedWindowMax, 300 << 7)
    }

    /// Cut mid-stream: the handshake's window scaling is unknown (no window figures, never a guess) while the bytes
    /// in flight still count from the capture's first packet.
    func testACaptureCutMidStreamCountsInFlightWithoutWindows() throws {
        var capture = download(handshake: false)
        let oracle = try tshark(capture)
        let connection = try XCTUnwrap(capture.report().connections.first)
        XCTAssertEqual(connection.serverToClient.inFlightMax, oracle.inFlight.map(Int64.init), "tshark's bytes in flight")
        XCTAssertEqual(connection.serverToClient.inFlightMax, 4000)
        XCTAssertNil(connection.serverToClient.windowAtInFlightMax)
        XCTAssertNil(connection.clientToServer.advertisedWindowMax)
    }

    /// The JSON report carries the same figures per direction: `capture analyze --format json` of the crafted file
    /// against tshark's bytes in flight and largest window on it, and null windows on the cut file.
    func testTheJSONReportCarriesEachDirectionsWindowFigures() throws {
        for handshake in [true, false] {
            let capture = download(handshake: handshake)
            let oracle = try tshark(capture)
            let path = LoopbackCapture.temporaryPath("in-flight-json.pcap")
            capture.write(to: path)
            defer { unlink(path) }
            let outcome = try WirelensCLI.run(["capture", "analyze", path, "--format", "json"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
            let connection = try XCTUnwrap((json["connections"] as? [[String: Any]])?.first)
            let data = try XCTUnwrap(connection["serverToClient"] as? [String: Any])
            let acks = try XCTUnwrap(connection["clientToServer"] as? [String: Any])
            XCTAssertEqual(data["inFlightMax"] as? Int, oracle.inFlight, "tshark's bytes in flight")
            if handshake {
                XCTAssertEqual(data["windowAtInFlightMax"] as? Int, 200 << 7)
                XCTAssertEqual(acks["advertisedWindowMax"] as? Int, oracle.clientWindow, "tshark's largest window")
            } else {
                XCTAssertTrue(data["windowAtInFlightMax"] is NSNull, "no window scaling captured: null, not a guess")
                XCTAssertTrue(acks["advertisedWindowMax"] is NSNull)
            }
        }
    }
}
