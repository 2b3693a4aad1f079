import WirelensCore
/// Decides which part uploads fail with 503 (`--fail-parts F --fail-seed S`): a pure function of the seed, the
/// upload id, the part index and the attempt number, so a failed part can succeed on retry and a run repeats.
package struct PartFailurePolicy: Sendable, Equatable {
    /// The fraction of attempts that fail, 0...1.
    package var fraction: Double
    package var seed: UInt64

    package init(fraction: Double, seed: UInt64) {
        self.fraction = min(1, max(0, fraction))
        self.seed = seed
    }

    /// True when attempt `attempt` (1 for the first) of part `index` of upload `id` is to fail.
    package func fails(id: String, index: Int, attempt: Int) -> Bool {
        guard fraction > 0 else { return false }
        return Self.unit(seed: seed, id: id, index: index, attempt: attempt) < fraction
    }

    /// A number in [0, 1) from FNV-1a over the inputs, finished with SplitMix64's mixer.
    static func unit(seed: UInt64, id: String, index: Int, attempt: Int) -> Double {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: seed >> UInt64(shift))) }
        for byte in id.utf8 { mix(byte) }
        mix(0)
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: UInt64(index) >> UInt64(shift))) }
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: UInt64(attempt) >> UInt64(shift))) }
        return Double(PatternBytes.word(hash) >> 11) / Double(UInt64(1) << 53)
    }
}
