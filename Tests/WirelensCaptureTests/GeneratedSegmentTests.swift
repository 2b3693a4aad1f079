import Foundation
import XCTest
@testable import WirelensCapture
import WirelensTestSupport

/// Generated Ethernet/IPv4 frames (random header fields, IP and TCP options, VLAN tags, TCP segmentation offload's
/// zero total length, Ethernet padding, UDP and fragments, snapshot cuts anywhere) decode to what the test built
/// them from, whether decoded one at a time, through a batch, or read back from a classic pcap file the test writes.
/// Seeded, so a failure repeats.
final class GeneratedSegmentTests: XCTestCase {
    /// A generated frame and the decoding its construction implies, in `describe`'s form.
    private struct Generated {
        var frame: [UInt8]
        /// The frame's length on the wire (before the cut).
        var wire: Int
        var expected: String
    }

    /// The text form of an outcome compared with the expectation: every field, the payload bytes and where the
    /// payload starts in the frame.
    private static func describe(_ outcome: PacketDecoder.Outcome, frame: UnsafeRawBufferPointer) -> String {
        switch outcome {
        case .tcp(let s):
            let at = s.payload.baseAddress.map { $0 - frame.baseAddress! } ?? -1
            return describe(source: s.source, destination: s.destination, sequence: s.sequence,
                            acknowledgement: s.acknowledgement, flags: s.flags.rawValue, window: s.window,
                            windowScale: s.windowScale, payloadLength: s.payloadLength, at: at, payload: Array(s.payload))
        case .notTCP: return "not tcp"
        case .truncated: return "truncated"
        }
    }

    private static func describe(source: Endpoint, destination: Endpoint, sequence: UInt32, acknowledgement: UInt32,
                                 flags: UInt8, window: UInt16, windowScale: UInt8?, payloadLength: Int, at: Int,
                                 payload: [UInt8]) -> String {
        "tcp \(source) > \(destination) seq \(sequence) ack \(acknowledgement) flags \(flags) win \(window) "
            + "scale \(windowScale.map(String.init) ?? "-") len \(payloadLength) at \(at) payload \(payload)"
    }

    private static func bytes(_ count: Int, using rng: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// One frame built field by field, and what each field makes of it:
    /// - the capture keeps `captured` bytes of the frame; a frame cut before the end of the fixed TCP header (the
    ///   IP options included) is truncated; UDP and fragments whose fixed IP header is there are not TCP;
    /// - a zero IP total length (segmentation offload) makes the captured frame the packet: the payload is then
    ///   all the captured bytes after the TCP header, Ethernet padding included, and a cut inside the TCP options
    ///   leaves a segment shorter than its header (truncated); otherwise the payload is what the total length says,
    ///   padding excluded, and only its captured part is kept;
    /// - the window scale option (RFC 7323, at most 14) counts on a SYN when its three bytes are captured.
    private static func generate(using rng: inout SplitMix64) -> Generated {
        let source = Endpoint(address: IPAddress(v4: 10, UInt8.random(in: 0...255, using: &rng), 0, 1),
                              port: UInt16.random(in: 0...65535, using: &rng))
        let destination = Endpoint(address: IPAddress(v4: 192, 168, UInt8.random(in: 0...255, using: &rng), 200),
                                   port: UInt16.random(in: 0...65535, using: &rng))
        let sequence = UInt32.random(in: 0...UInt32.max, using: &rng)
        let acknowledgement = UInt32.random(in: 0...UInt32.max, using: &rng)
        let window = UInt16.random(in: 0...65535, using: &rng)
        let flagsByte = UInt8.random(in: 0...255, using: &rng)

        // TCP options: a random run of NOP, MSS, SACK-permitted and timestamps, at most one window scale, then EOL
        // padding to a multiple of 4 (at most 40 bytes).
        var options: [UInt8] = []
        var scaleAt: Int?, scaleValue: UInt8 = 0
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            var item: [UInt8]
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: item = [1]
            case 1: item = [2, 4] + bytes(2, using: &rng)
            case 2: item = [4, 2]
            case 3: item = [8, 10] + bytes(8, using: &rng)
            default:
                guard scaleAt == nil else { continue }
                scaleValue = UInt8.random(in: 0...20, using: &rng)
                item = [3, 3, scaleValue]
            }
            guard options.count + item.count <= 40 else { break }
            if item.first == 3 { scaleAt = options.count }
            options += item
        }
        while options.count % 4 != 0 { options.append(0) }
        let tcpHeader = 20 + options.count

        let payload = bytes(Int.random(in: 0...9, using: &rng) == 0 ? Int.random(in: 0...1400, using: &rng)
                                                                      : Int.random(in: 0...120, using: &rng), using: &rng)
        var tcp = FrameBuilder.be16(source.port) + FrameBuilder.be16(destination.port) + FrameBuilder.be32(sequence)
            + FrameBuilder.be32(acknowledgement)
        tcp += [UInt8(tcpHeader / 4) << 4 | UInt8.random(in: 0...15, using: &rng), flagsByte]
        tcp += FrameBuilder.be16(window) + bytes(4, using: &rng) + options + payload

        let ipOptions = Int.random(in: 0...4, using: &rng) == 0 ? bytes(4 * Int.random(in: 1...10, using: &rng), using: &rng) : []
        let ipHeader = 20 + ipOptions.count
        let offload = Int.random(in: 0...7, using: &rng) == 0
        let udp = Int.random(in: 0...19, using: &rng) == 0
        // Don't-fragment alone is not a fragment; an offset or more-fragments is.
        let fragmentField: UInt16 = Int.random(in: 0...19, using: &rng) == 0
            ? [0x2000, 0x0001, 0x1fff, 0x6000][Int.random(in: 0..<4, using: &rng)] : [0, 0x4000][Int.random(in: 0...1, using: &rng)]
        var ip: [UInt8] = [0x40 | UInt8(ipHeader / 4), UInt8.random(in: 0...255, using: &rng)]
        ip += FrameBuilder.be16(offload ? 0 : UInt16(ipHeader + tcp.count))
        ip += bytes(2, using: &rng) + FrameBuilder.be16(fragmentField) + [UInt8.random(in: 1...255, using: &rng), udp ? 17 : 6]
        ip += bytes(2, using: &rng) + FrameBuilder.be32(UInt32(source.address.low)) + FrameBuilder.be32(UInt32(destination.address.low))
        ip += ipOptions + tcp

        let vlan = Int.random(in: 0...9, using: &rng) == 0
        let link = vlan ? 18 : 14
        let padding = Int.random(in: 0...3, using: &rng) == 0 ? bytes(Int.random(in: 1...20, using: &rng), using: &rng) : []
        let full = bytes(12, using: &rng) + (vlan ? [0x81, 0x00] + bytes(2, using: &rng) : []) + [0x08, 0x00] + ip + padding
        let captured = Int.random(in: 0...3, using: &rng) == 0 ? Int.random(in: 0...full.count, using: &rng) : full.count
        let frame = Array(full.prefix(captured))

        let tcpStart = link + ipHeader, payloadStart = tcpStart + tcpHeader
        let expected: String
        if captured < link + 20 {
            expected = "truncated"
        } else if udp || fragmentField & 0x3fff != 0 {
            expected = "not tcp"
        } else if captured < tcpStart + 20 || (offload && captured < payloadStart) {
            expected = "truncated"
        } else {
            // The payload as the IP header has it (offload: the rest of the captured frame), then its captured part.
            let carried = offload ? Array(frame[payloadStart...]) : payload
            let kept = Array(carried.prefix(max(0, captured - payloadStart)))
            var scale: UInt8?
            if flagsByte & 0x02 != 0, let scaleAt, tcpStart + 20 + scaleAt + 3 <= captured { scale = min(scaleValue, 14) }
            expected = describe(source: source, destination: destination, sequence: sequence,
                                acknowledgement: acknowledgement, flags: flagsByte & 0x1f, window: window,
                                windowScale: scale, payloadLength: carried.count, at: min(payloadStart, captured),
                                payload: kept)
        }
        return Generated(frame: frame, wire: full.count, expected: expected)
    }

    private func generated(_ count: Int, seed: UInt64) -> [Generated] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Self.generate(using: &rng) }
    }

    func testFramesDecodeToTheFieldsTheyWereBuiltFrom() {
        let frames = generated(20_000, seed: 0x5e9_0001)
        var seen = Set<String>()
        for (i, g) in frames.enumerated() {
            let got = g.frame.withUnsafeBytes { Self.describe(PacketDecoder.decode($0, linkType: .ethernet), frame: $0) }
            XCTAssertEqual(got, g.expected, "frame \(i): \(g.frame)")
            seen.insert(String(g.expected.prefix(3)))
        }
        XCTAssertEqual(seen, ["tcp", "not", "tru"], "every kind of outcome was generated")
    }

    /// Through small batches (whose records grow past the room reserved for them) the same decodings come back,
    /// each payload inside the batch's copy of its packet.
    func testBatchesKeepEachFramesDecoding() {
        let frames = generated(3000, seed: 0x5e9_0002)
        var got: [String] = []
        let batch = PacketBatch(capacity: 4096, linkType: .ethernet)
        func drain() {
            batch.forEach { packet, outcome in got.append(Self.describe(outcome, frame: packet.bytes)) }
            batch.clear()
        }
        for g in frames {
            if !batch.fits(g.frame.count) { drain() }
            g.frame.withUnsafeBytes { batch.append(CapturedPacket(timestampNanos: 0, originalLength: g.wire, bytes: $0)) }
        }
        drain()
        XCTAssertEqual(got, frames.map(\.expected))
    }

    /// A classic pcap file of the frames (Ethernet, snapshot 65535), read by `ClassicPcapReader` in batches of
    /// up to 4096 records, hands over the same decodings with each record's lengths and time.
    func testClassicFileHandsOverEachFramesDecoding() throws {
        let frames = generated(9000, seed: 0x5e9_0003)
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
        var file = le32(0xa1b2_3c4d) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(1)
        for (i, g) in frames.enumerated() {
            file += le32(1_700_000_000) + le32(UInt32(i)) + le32(UInt32(g.frame.count)) + le32(UInt32(g.wire)) + g.frame
        }
        let path = LoopbackCapture.temporaryPath("generated.pcap")
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(file)))
        var got: [String] = [], lengths: [Int] = [], times: [Int64] = []
        let reading = try PacketFile(path: path).forEachPacket { packet, outcome in
            got.append(Self.describe(outcome, frame: packet.bytes))
            lengths.append(packet.originalLength)
            times.append(packet.timestampNanos)
        }
        XCTAssertEqual(reading.packets, frames.count)
        XCTAssertEqual(got, frames.map(\.expected))
        XCTAssertEqual(lengths, frames.map(\.wire))
        XCTAssertEqual(times, (0..<frames.count).map { 1_700_000_000_000_000_000 + Int64($0) })
    }
}
