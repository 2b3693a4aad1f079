import WirelensCore
import WirelensTestSupport
import XCTest

/// The one deterministic byte pattern (`/bytes`, generated request bodies, compare's upload file), held to Python's
/// own computation of the documented formula: byte k is byte k % 8 (little-endian) of splitmix64(k / 8).
final class PatternBytesTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    func testBytesEqualPythonsComputationAtAnyOffset() throws {
        for (offset, count) in [(0, 64), (1, 7), (5, 3), (13, 100), (65_531, 20), (1 << 40, 17), (999_999_999, 33)] {
            XCTAssertEqual(hex(PatternBytes.bytes(offset: Int64(offset), count: count)), try PatternOracle.hex(offset: Int64(offset), count: count),
                           "offset \(offset), \(count) bytes")
        }
    }

    func testPatternBytesDependOnTheOffsetOnly() {
        let whole = PatternBytes.bytes(offset: 0, count: 1000)
        for (offset, count) in [(0, 1), (1, 7), (3, 64), (8, 8), (13, 500), (999, 1)] {
            XCTAssertEqual(PatternBytes.bytes(offset: Int64(offset), count: count), Array(whole[offset..<offset + count]))
        }
        // Not constant: the bytes vary.
        XCTAssertGreaterThan(Set(whole).count, 200)
        // The documented formula: byte k is byte k%8 (little-endian) of word(k/8).
        XCTAssertEqual(whole[17], UInt8(truncatingIfNeeded: PatternBytes.word(2) >> 8))
    }
}
