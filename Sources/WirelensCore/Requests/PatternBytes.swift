/// The one deterministic byte pattern: what the target's `/bytes/{n}` serves, generated request bodies
/// (`--upload-size`, a check's `body: {size}`) and compare's generated upload file. Byte `k` depends on `k` alone,
/// so any range of any length concatenates to the same content.
///
/// Byte `k` is byte `k % 8` (little-endian) of `splitmix64(k / 8)`, where splitmix64 is the finaliser of
/// Steele, Lea and Flood's SplitMix64 applied to `x + 0x9E3779B97F4A7C15`; other tools can recompute it.
package enum PatternBytes {
    /// The 64-bit word holding bytes `8*index ..< 8*index + 8`.
    @inline(__always)
    package static func word(_ index: UInt64) -> UInt64 {
        var z = index &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Fills `buffer` with the bytes at resource offsets `offset ..< offset + buffer.count`.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer, offset: Int64) {
        var position = 0
        var k = UInt64(offset)
        let count = buffer.count
        // Leading bytes up to a word boundary.
        while position < count, k % 8 != 0 {
            buffer[position] = UInt8(truncatingIfNeeded: word(k / 8) >> ((k % 8) * 8))
            position += 1
            k += 1
        }
        // Whole words.
        while count - position >= 8 {
            buffer.storeBytes(of: word(k / 8).littleEndian, toByteOffset: position, as: UInt64.self)
            position += 8
            k += 8
        }
        // Trailing bytes.
        while position < count {
            buffer[position] = UInt8(truncatingIfNeeded: word(k / 8) >> ((k % 8) * 8))
            position += 1
            k += 1
        }
    }

    /// The bytes at offsets `offset ..< offset + count`, as an array (for tests and small bodies).
    package static func bytes(offset: Int64, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer), offset: offset)
            initialized = count
        }
    }
}
