import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensCapture

final class PacketBatchTests: XCTestCase {
    /// Packets come back byte for byte with their lengths and times; a packet larger than the batch fits an
    /// empty batch (which grows), and a full batch refuses the next one until cleared.
    func testPacketsRoundTripAndLargePacketsGrowAnEmptyBatch() {
        let batch = PacketBatch(capacity: 4096, linkType: .raw)
        let packets: [[UInt8]] = [(0..<4000).map { UInt8($0 % 256) }, Array(100..<190)]
        for (i, bytes) in packets.enumerated() {
            if i == 1 {
                XCTAssertTrue(batch.fits(bytes.count), "4000 + 90 bytes fit in 4096")
                XCTAssertFalse(batch.fits(100), "4000 + 100 do not")
            }
            bytes.withUnsafeBytes {
                batch.append(CapturedPacket(timestampNanos: Int64(i), originalLength: bytes.count + 1000, bytes: $0))
            }
        }
        var seen: [([UInt8], Int, Int64)] = []
        batch.forEach { packet, _ in seen.append((Array(packet.bytes), packet.originalLength, packet.timestampNanos)) }
        XCTAssertEqual(seen.map(\.0), packets)
        XCTAssertEqual(seen.map(\.1), [5000, 1090])
        XCTAssertEqual(seen.map(\.2), [0, 1])

        batch.clear()
        let large = (0..<5000).map { UInt8($0 % 251) }
        XCTAssertTrue(batch.fits(large.count), "an empty batch takes any packet")
        large.withUnsafeBytes {
            batch.append(CapturedPacket(timestampNanos: 7, originalLength: large.count, bytes: $0))
        }
        XCTAssertFalse(batch.fits(1), "the grown batch is full")
        var copies: [[UInt8]] = []
        batch.forEach { packet, _ in copies.append(Array(packet.bytes)) }
        XCTAssertEqual(copies, [large])
    }

    /// Each packet is decoded as it is copied in, and the decoded payload is the batch's copy of the bytes.
    func testPacketsAreDecodedWithPayloadsInTheBatch() throws {
        let payload = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        let tcp = FrameBuilder.tcp(from: 40000, to: 80, seq: 7, ack: 9, flags: [.ack, .psh], payload: payload)
        let frame = FrameBuilder.ipv4(IPAddress(v4: 10, 0, 0, 1), IPAddress(v4: 10, 0, 0, 2), tcp)
        let batch = PacketBatch(capacity: 4096, linkType: .raw)
        frame.withUnsafeBytes {
            batch.append(CapturedPacket(timestampNanos: 1, originalLength: frame.count, bytes: $0))
        }
        var segments: [TCPSegment] = []
        var inside = false
        batch.forEach { packet, outcome in
            guard case .tcp(let segment) = outcome else { return }
            segments.append(segment)
            let start = packet.bytes.baseAddress!, end = start + packet.bytes.count
            inside = segment.payload.baseAddress.map { $0 >= start && $0 + segment.payload.count <= end } ?? false
            XCTAssertEqual(Array(segment.payload), payload)
        }
        let segment = try XCTUnwrap(segments.first)
        XCTAssertEqual(segments.count, 1)
        XCTAssertEqual(segment.source.port, 40000)
        XCTAssertEqual(segment.sequence, 7)
        XCTAssertTrue(inside, "the payload points into the batch's copy of the packet")
    }

    /// Classic pcap records read into a small batch (room for 16 records reserved) are all added, in order, with
    /// their times, lengths, bytes and decodings, the records growing past the room reserved.
    func testClassicRecordsInASmallBatchGrowItsRecords() throws {
        let frames = (0..<70).map { i in  // 57 bytes each: 3990 bytes
            FrameBuilder.ipv4(IPAddress(v4: 10, 0, 0, 1), IPAddress(v4: 10, 0, 0, 2),
                              FrameBuilder.tcp(from: 40000, to: 80, seq: UInt32(i), ack: 9, flags: .ack,
                                               payload: [UInt8(i)]))
        }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
        var bytes: [UInt8] = []
        for (i, frame) in frames.enumerated() {
            bytes += le32(7) + le32(UInt32(i)) + le32(UInt32(frame.count)) + le32(UInt32(frame.count + i)) + frame
        }
        let path = LoopbackCapture.temporaryPath("records")
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        let batch = PacketBatch(capacity: 4096, linkType: .raw)
        XCTAssertEqual(batch.read(descriptor, at: 0, count: 4096), bytes.count)
        let walk = batch.appendClassicRecords(from: 0, swapped: false, nanoseconds: true, snapshot: 65535,
                                              maximum: 262_144)
        XCTAssertEqual(walk.scan, bytes.count)
        XCTAssertEqual(batch.count, frames.count)
        var seen: [([UInt8], Int, Int64, UInt32?, [UInt8])] = []
        batch.forEach { packet, outcome in
            guard case .tcp(let segment) = outcome else { return XCTFail("\(outcome)") }
            seen.append((Array(packet.bytes), packet.originalLength, packet.timestampNanos, segment.sequence,
                         Array(segment.payload)))
        }
        XCTAssertEqual(seen.map(\.0), frames)
        XCTAssertEqual(seen.map(\.1), frames.indices.map { frames[$0].count + $0 })
        XCTAssertEqual(seen.map(\.2), frames.indices.map { 7_000_000_000 + Int64($0) })
        XCTAssertEqual(seen.map(\.3), frames.indices.map { UInt32($0) })
        XCTAssertEqual(seen.map(\.4), frames.indices.map { [UInt8($0)] })
    }
}
