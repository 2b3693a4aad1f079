import WirelensCaptureModel

/// The 4-tuple of a TCP flow with its two ends in a fixed order, so both directions find the same entry.
struct FlowKey: Hashable {
    var lower: Endpoint
    var upper: Endpoint

    @inline(__always)
    init(_ a: Endpoint, _ b: Endpoint) {
        if a < b {
            lower = a
            upper = b
        } else {
            lower = b
            upper = a
        }
    }

    static func == (lhs: FlowKey, rhs: FlowKey) -> Bool {
        lhs.lower == rhs.lower && lhs.upper == rhs.upper
    }

    /// Hashes one word folded from the 4-tuple: the flow table looks a key up for every packet, and feeding the
    /// hasher each field separately cost as much as the rest of the lookup. The fold multiplies each part by a
    /// different odd constant, so swapping ports or addresses between the ends changes it.
    func hash(into hasher: inout Hasher) {
        hasher.combine(foldedWord)
    }

    /// The 4-tuple folded into one word (`FlowTable` picks its buckets from it).
    var foldedWord: UInt64 {
        var word = lower.address.low &* 0x9E37_79B9_7F4A_7C15
        word ^= upper.address.low &* 0xC2B2_AE3D_27D4_EB4F
        word ^= lower.address.high &* 0x1656_67B1_9E37_79F9
        word ^= upper.address.high &* 0x85EB_CA77_C2B2_AE63
        word ^= (UInt64(lower.port) << 16 | UInt64(upper.port)) &* 0x27D4_EB2F_1656_67C5
        return word
    }
}
