import XCTest
@testable import WirelensCapture

final class PacketBatchTests: XCTestCase {
    /// Packets come back byte for byte with their lengths and times; a packet larger than the batch fits an
    /// empty batch (which grows), and a full batch refuses the next one until cleared.
    func testPacketsRoundTripAndLargePacketsGrowAnEmptyBatch() {
        let batch = PacketBatch(capacity: 64)
        let packets: [[UInt8]] = [Array(0..<40), Array(100..<120)]
        for (i, bytes) in packets.enumerated() {
            if i == 1 {
                XCTAssertTrue(batch.fits(bytes.count), "40 + 20 bytes fit in 64")
                XCTAssertFalse(batch.fits(25), "40 + 25 do not")
            }
            bytes.withUnsafeBytes { batch.append($0, originalLength: bytes.count + 1000, timestampNanos: Int64(i)) }
        }
        var seen: [([UInt8], Int, Int64)] = []
        batch.forEach { seen.append((Array($0.bytes), $0.originalLength, $0.timestampNanos)) }
        XCTAssertEqual(seen.map(\.0), packets)
        XCTAssertEqual(seen.map(\.1), [1040, 1020])
        XCTAssertEqual(seen.map(\.2), [0, 1])

        batch.clear()
        let large = (0..<300).map { UInt8($0 % 251) }
        XCTAssertTrue(batch.fits(large.count), "an empty batch takes any packet")
        large.withUnsafeBytes { batch.append($0, originalLength: large.count, timestampNanos: 7) }
        XCTAssertFalse(batch.fits(1), "the grown batch is full")
        var copies: [[UInt8]] = []
        batch.forEach { copies.append(Array($0.bytes)) }
        XCTAssertEqual(copies, [large])
    }
}
