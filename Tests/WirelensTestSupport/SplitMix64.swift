import Foundation

/// SplitMix64: a small seeded random number generator, so that a test draws the same values on every run.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// Writes `count` bytes drawn from a generator seeded with `seed` to `path`: the same file on every run.
    public static func writeFile(_ path: String, bytes count: Int, seed: UInt64) throws {
        var generator = SplitMix64(seed: seed)
        let words = (0..<(count + 7) / 8).map { _ in generator.next() }
        try words.withUnsafeBytes { Data($0.prefix(count)) }.write(to: URL(fileURLWithPath: path))
    }
}
