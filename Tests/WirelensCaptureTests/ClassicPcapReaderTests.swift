import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensCapture

/// Classic pcap files read by `ClassicPcapReader` (no filter) give back exactly the records the test wrote, in
/// both byte orders and both timestamp precisions, across many batches; damaged endings give libpcap's own
/// message, as tcpdump (libpcap) prints it for the same file.
final class ClassicPcapReaderTests: XCTestCase {
    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    /// One record as written: its time fields, lengths and captured bytes.
    private struct Record: Equatable {
        var seconds: UInt32
        var fraction: UInt32
        var captured: [UInt8]
        var length: UInt32
    }

    /// A classic pcap file (link type raw IP) of `records`, in big-endian order when `bigEndian`, with a
    /// nanosecond magic when `nanoseconds`, then `tail` bytes.
    private func write(_ records: [Record], bigEndian: Bool, nanoseconds: Bool, snapshot: UInt32 = 65535,
                       capturedLengths: [UInt32]? = nil, tail: [UInt8] = []) -> String {
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = (0..<4).map { UInt8(v >> (8 * $0) & 0xff) }
            return bigEndian ? bytes.reversed() : bytes
        }
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)] }
        var bytes = u32(nanoseconds ? 0xa1b2_3c4d : 0xa1b2_c3d4) + u16(2) + u16(4) + u32(0) + u32(0) + u32(snapshot)
            + u32(101)
        for (i, record) in records.enumerated() {
            bytes += u32(record.seconds) + u32(record.fraction)
                + u32(capturedLengths?[i] ?? UInt32(record.captured.count)) + u32(record.length) + record.captured
        }
        bytes += tail
        let path = LoopbackCapture.temporaryPath("classic.pcap")
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        toRemove.append(path)
        return path
    }

    /// The packets `PacketFile` hands over for `path`, and the error that ended the reading.
    private func read(_ path: String, filter: String? = nil) throws -> ([(Int64, Int, [UInt8])], CaptureError?) {
        var packets: [(Int64, Int, [UInt8])] = []
        do {
            try PacketFile(path: path, filter: filter).forEachPacket { packet, _ in
                packets.append((packet.timestampNanos, packet.originalLength, Array(packet.bytes)))
            }
            return (packets, nil)
        } catch {
            return (packets, error)
        }
    }

    /// libpcap's message for the damaged end of `path`, as tcpdump reports it.
    private func libpcapMessage(_ path: String) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/tcpdump", ["-r", path, "-w", "/dev/null"], timeout: 30)
        let line = try XCTUnwrap(outcome.stderr.split(separator: "\n").first { $0.contains("pcap_loop: ") })
        return String(line[line.range(of: "pcap_loop: ")!.upperBound...])
    }

    /// 9000 records of 0 to 1999 bytes (several batches by bytes and by record count), each precision and order.
    func testRecordsComeBackAsWrittenInEveryByteOrderAndPrecision() throws {
        var generator = SplitMix64(seed: 17)
        let records = (0..<9000).map { i in
            let count = i % 50 == 0 ? Int.random(in: 1000..<2000, using: &generator) : Int.random(in: 0..<120, using: &generator)
            return Record(seconds: UInt32(1_700_000_000 + i / 7), fraction: UInt32(i * 101 % 999_999),
                          captured: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) },
                          length: UInt32(count + i % 3))
        }
        for bigEndian in [false, true] {
            for nanoseconds in [false, true] {
                let path = write(records, bigEndian: bigEndian, nanoseconds: nanoseconds)
                let (packets, failure) = try read(path)
                XCTAssertNil(failure)
                XCTAssertEqual(packets.count, records.count)
                for (packet, record) in zip(packets, records) {
                    let nanos = Int64(record.seconds) * 1_000_000_000 + Int64(record.fraction) * (nanoseconds ? 1 : 1000)
                    XCTAssertEqual(packet.0, nanos)
                    XCTAssertEqual(packet.1, Int(record.length))
                    XCTAssertEqual(packet.2, record.captured)
                }
            }
        }
    }

    /// A record longer than the file's snapshot length is cut to it (its rest skipped), as libpcap does.
    func testRecordsLongerThanTheSnapshotAreCut() throws {
        let records = (0..<5).map { i in
            Record(seconds: 1, fraction: UInt32(i), captured: (0..<(i * 100)).map { UInt8($0 % 256) }, length: 1000)
        }
        let path = write(records, bigEndian: false, nanoseconds: false, snapshot: 250)
        let (packets, failure) = try read(path)
        XCTAssertNil(failure)
        XCTAssertEqual(packets.map(\.2), records.map { Array($0.captured.prefix(250)) })
        let (filtered, _) = try read(path, filter: "len >= 0")  // libpcap reads a filtered file itself
        XCTAssertEqual(filtered.map(\.2), packets.map(\.2))
    }

    /// A file cut in a record header, in a record's bytes, or holding an impossible length ends the reading after
    /// the whole records before it, with libpcap's message.
    func testDamagedEndingsGiveLibpcapsMessage() throws {
        let records = (0..<3000).map { i in
            Record(seconds: 5, fraction: UInt32(i), captured: Array(repeating: UInt8(i % 256), count: i % 300), length: 400)
        }
        let cuts: [(String, [UInt8], UInt32?)] = [
            ("header", [1, 2, 3, 4, 5, 6, 7], nil),
            ("data", [0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0] + Array(repeating: 9, count: 40), nil),
            ("impossible length", [0, 0, 0, 0, 0, 0, 0, 0, 0xe0, 0x93, 0x04, 0, 0, 0, 0, 0] + Array(repeating: 9, count: 40), nil),
            ("beyond the snapshot", [0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0x03, 0, 0, 0, 0, 0, 0] + Array(repeating: 9, count: 500), 300),
        ]
        for (name, tail, snapshot) in cuts {
            let path = write(records, bigEndian: false, nanoseconds: false, snapshot: snapshot ?? 65535, tail: tail)
            let (packets, failure) = try read(path)
            XCTAssertEqual(packets.count, records.count, name)
            guard case .readFailed(_, let read, let reason) = failure else {
                XCTFail("\(name): \(String(describing: failure))")
                continue
            }
            XCTAssertEqual(read, records.count, name)
            XCTAssertEqual(reason, try libpcapMessage(path), name)
        }
    }
}
