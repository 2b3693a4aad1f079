import WirelensCaptureModel

extension IPAddress {
    /// Reads an IPv4 address (4 bytes) at `offset`; the caller has checked the bounds.
    @inline(__always)
    static func v4(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> IPAddress {
        let word = ByteReader.u32(bytes, offset)
        return IPAddress(v4: UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                         UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word))
    }

    /// Reads an IPv6 address (16 bytes) at `offset`; the caller has checked the bounds.
    @inline(__always)
    static func v6(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> IPAddress {
        IPAddress(v6High: ByteReader.u64(bytes, offset), low: ByteReader.u64(bytes, offset + 8))
    }
}
