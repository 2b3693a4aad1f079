/// An IPv4 or IPv6 address held in two words, so that it hashes and compares cheaply in the flow table.
public struct IPAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The first 8 bytes of an IPv6 address in network order; 0 for IPv4.
    public var high: UInt64
    /// The last 8 bytes of an IPv6 address, or the IPv4 address in the low 32 bits.
    public var low: UInt64
    public var isIPv6: Bool

    /// An IPv4 address from its four bytes in network order.
    public init(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        high = 0
        low = UInt64(a) << 24 | UInt64(b) << 16 | UInt64(c) << 8 | UInt64(d)
        isIPv6 = false
    }

    /// An IPv6 address from its two big-endian halves.
    public init(v6High: UInt64, low: UInt64) {
        high = v6High
        self.low = low
        isIPv6 = true
    }

    /// IPv4 before IPv6, then by the address's words. Inlinable: the capture's flow table orders the two ends of
    /// every packet's 4-tuple with it.
    @inlinable
    public static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        (lhs.isIPv6 ? 1 : 0, lhs.high, lhs.low) < (rhs.isIPv6 ? 1 : 0, rhs.high, rhs.low)
    }

    /// Dotted quad for IPv4; RFC 5952 text for IPv6 (lower case, longest zero run as "::").
    public var description: String {
        guard isIPv6 else {
            return "\(low >> 24 & 0xff).\(low >> 16 & 0xff).\(low >> 8 & 0xff).\(low & 0xff)"
        }
        let groups = (0..<8).map { i -> UInt16 in
            let word = i < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (UInt64(3 - i % 4) * 16))
        }
        // The longest run of two or more zero groups (the first one on a tie) becomes "::".
        var best = (start: -1, length: 0)
        var i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > best.length && j - i >= 2 { best = (i, j - i) }
                i = j
            } else {
                i += 1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            groups[range].map { String($0, radix: 16) }.joined(separator: ":")
        }
        guard best.start >= 0 else { return hex(0..<8) }
        return hex(0..<best.start) + "::" + hex((best.start + best.length)..<8)
    }
}
