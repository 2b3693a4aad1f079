@testable import WirelensCapture

/// Many short HTTP/1.1 connections, as a load generator with `Connection: close` makes them: handshake, one GET
/// and its answer, FINs from both sides. Connection `n` has its own client port (cycling over `ports`) and
/// initial sequence numbers, so that a reused port carries a new connection.
struct ShortConnections {
    /// µs between two connections' first packets, and between two packets of one connection.
    var every: Int64 = 50
    var packetSpacing: Int64 = 4
    /// The first connection's first packet (µs since the epoch).
    var start: Int64 = 1_700_000_000_000_000
    /// Client ports used in turn (Linux's ephemeral range has 28 232), from `firstPort`.
    var ports = 40_000
    var firstPort = 10_000

    /// Packets per connection.
    static let packetsPerConnection = 10

    /// The frames (Ethernet) of connection `n`, each with its capture time in µs.
    func frames(_ n: Int) -> [(time: Int64, frame: [UInt8])] {
        var builder = FrameBuilder()
        builder.source.port = UInt16(firstPort + n % ports)
        let c0 = UInt32(truncatingIfNeeded: n &* 2_654_435_761), s0 = UInt32(truncatingIfNeeded: n &* 40_503 &+ 7)
        let request = Array("GET /small.txt?n=\(n) HTTP/1.1\r\nHost: 10.0.0.2\r\nConnection: close\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello".utf8)
        let c1 = c0 &+ 1, s1 = s0 &+ 1
        let c2 = c1 &+ UInt32(request.count), s2 = s1 &+ UInt32(response.count)
        let frames = [
            builder.frame(seq: c0, flags: .syn, windowScale: 7),
            builder.frame(seq: s0, ack: c1, flags: [.syn, .ack], windowScale: 7, reverse: true),
            builder.frame(seq: c1, ack: s1, flags: .ack),
            builder.frame(seq: c1, ack: s1, flags: [.ack, .psh], payload: request),
            builder.frame(seq: s1, ack: c2, flags: .ack, reverse: true),
            builder.frame(seq: s1, ack: c2, flags: [.ack, .psh], payload: response, reverse: true),
            builder.frame(seq: s2, ack: c2, flags: [.ack, .fin], reverse: true),
            builder.frame(seq: c2, ack: s2 &+ 1, flags: [.ack, .fin]),
            builder.frame(seq: s2 &+ 1, ack: c2 &+ 1, flags: .ack, reverse: true),
            builder.frame(seq: c2 &+ 1, ack: s2 &+ 1, flags: .ack),
        ]
        let first = start + Int64(n) * every
        return frames.enumerated().map { (first + Int64($0.offset) * packetSpacing, $0.element) }
    }

    /// A classic pcap file header (microsecond timestamps, little-endian, Ethernet).
    static let pcapHeader: [UInt8] = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(1)

    /// Connection `n` as pcap records (after `pcapHeader`).
    func pcapRecords(_ n: Int) -> [UInt8] {
        frames(n).flatMap { Self.pcapRecord(time: $0.time, frame: $0.frame) }
    }

    /// One pcap record: `frame`, captured whole at `time` (µs since the epoch).
    static func pcapRecord(time: Int64, frame: [UInt8]) -> [UInt8] {
        le32(UInt32(time / 1_000_000)) + le32(UInt32(time % 1_000_000)) + le32(UInt32(frame.count))
            + le32(UInt32(frame.count)) + frame
    }

    private static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
}
