/// Reads the fields of a kernel struct from its bytes: little-endian integers at byte offsets from the bytes' start,
/// 0 for one that does not fit (the caller checks the length it needs).
public enum KernelBytes {
    /// The 16-bit little-endian integer at `offset`.
    public static func u16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: value(bytes, at: offset, count: 2))
    }

    /// The 32-bit little-endian integer at `offset`.
    public static func u32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: value(bytes, at: offset, count: 4))
    }

    /// The 16-bit big-endian (network order) integer at `offset`: a port in a `sockaddr`.
    public static func networkU16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        let start = bytes.startIndex + offset
        return UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
    }

    private static func value(_ bytes: ArraySlice<UInt8>, at offset: Int, count: Int) -> UInt64 {
        guard offset >= 0, offset + count <= bytes.count else { return 0 }
        let start = bytes.startIndex + offset
        var result: UInt64 = 0
        for i in (0..<count).reversed() { result = result << 8 | UInt64(bytes[start + i]) }
        return result
    }
}
