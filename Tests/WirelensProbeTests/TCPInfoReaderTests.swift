import Foundation
import Glibc
import XCTest
import WirelensCore
@testable import WirelensProbe

/// `TCPInfoReader` on a live loopback connection, against `ss -ti` (iproute2 reads the same facts through netlink).
final class TCPInfoReaderTests: XCTestCase {
    /// A connected loopback pair: the client's and the accepted server's descriptors, and the client's local port.
    private struct Pair {
        var client: Int32
        var server: Int32
        var clientPort: Int
        var serverPort: Int
    }

    private func loopbackPair() throws -> Pair {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) } }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(listener, 1), 0)
        var length = size
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let serverPort = Int(UInt16(bigEndian: address.sin_port))
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) } }
        XCTAssertEqual(connected, 0)
        let server = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(server, 0)
        var local = sockaddr_in()
        length = size
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &length) } }
        return Pair(client: client, server: server, clientPort: Int(UInt16(bigEndian: local.sin_port)), serverPort: serverPort)
    }

    /// Moves `count` bytes from the client to the server, the server reading them all.
    private func send(_ count: Int, over pair: Pair) {
        let chunk = [UInt8](repeating: 0x61, count: 65536)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var sent = 0
        var received = 0
        // Both ends on this thread: write what fits, read what came, until all arrived (bounded by the count).
        _ = fcntl(pair.client, F_SETFL, fcntl(pair.client, F_GETFL) | O_NONBLOCK)
        for _ in 0..<100_000 where received < count {
            if sent < count {
                let n = chunk.withUnsafeBytes { Glibc.send(pair.client, $0.baseAddress, min($0.count, count - sent), 0) }
                if n > 0 { sent += n }
            }
            let r = buffer.withUnsafeMutableBytes { recv(pair.server, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if r > 0 { received += r }
        }
        XCTAssertEqual(received, count)
    }

    /// `ss -tiH` for the client's end of the connection: its `name:value` tokens.
    private func ssFacts(clientPort: Int, serverPort: Int) throws -> [String: String] {
        let process = Process()
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ss", "-tinH", "state", "established", "( sport = :\(clientPort) and dport = :\(serverPort) )"]
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var facts: [String: String] = [:]
        for token in String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }) {
            let parts = token.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { facts[String(parts[0])] = String(parts[1]) }
        }
        return facts
    }

    func testAgreesWithSSOnALoopbackTransfer() throws {
        let pair = try loopbackPair()
        defer {
            close(pair.client)
            close(pair.server)
        }
        let before = try XCTUnwrap(TCPInfoReader.read(socket: pair.client))
        XCTAssertEqual(before.state, 1, "established")
        send(3_000_000, over: pair)
        // Wait (bounded) until the peer acknowledged everything, so that both readers see a quiet connection.
        var info = try XCTUnwrap(TCPInfoReader.read(socket: pair.client))
        for _ in 0..<200 where info.unacked > 0 {
            usleep(5000)
            info = try XCTUnwrap(TCPInfoReader.read(socket: pair.client))
        }
        XCTAssertEqual(info.unacked, 0)
        let ss = try ssFacts(clientPort: pair.clientPort, serverPort: pair.serverPort)
        XCTAssertFalse(ss.isEmpty, "ss found no such connection")
        XCTAssertEqual(info.bytesSent.map(String.init), ss["bytes_sent"])
        XCTAssertEqual(info.bytesAcked.map(String.init), ss["bytes_acked"])
        XCTAssertEqual(info.dataSegmentsOut.map(String.init), ss["data_segs_out"])
        XCTAssertEqual(info.delivered.map(String.init), ss["delivered"])
        XCTAssertEqual(info.sendWindow.map(String.init), ss["snd_wnd"])
        XCTAssertEqual(String(info.congestionWindow), ss["cwnd"])
        XCTAssertEqual(String(info.pathMTU), ss["pmtu"])
        // ss prints the minimum RTT in milliseconds with three decimals.
        let minRTT = try XCTUnwrap(info.minRTT)
        XCTAssertEqual(ss["minrtt"].flatMap(Double.init).map { Int(($0 * 1000).rounded()) }, Int(minRTT))
        // The counters moved by what this test sent (the SYN counts as one acknowledged byte).
        XCTAssertEqual((info.bytesAcked ?? 0) - (before.bytesAcked ?? 0), 3_000_000)
    }

    func testASocketThatIsNotTCPHasNoSnapshot() {
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(udp) }
        XCTAssertNil(TCPInfoReader.read(socket: udp))
        XCTAssertNil(TCPInfoReader.read(socket: -1))
    }
}
