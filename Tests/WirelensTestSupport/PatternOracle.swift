import Foundation

/// The documented byte pattern recomputed by Python on its own, the oracle for `PatternBytes`: byte k is byte
/// k % 8 (little-endian) of splitmix64(k / 8), splitmix64 being SplitMix64's finaliser of `x + 0x9E3779B97F4A7C15`.
public enum PatternOracle {
    private static let script = """
        import hashlib, struct, sys
        M = (1 << 64) - 1
        def word(i):
            z = (i + 0x9E3779B97F4A7C15) & M
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
            return z ^ (z >> 31)
        what, offset, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        first, last = offset // 8, (offset + count + 7) // 8
        data = b"".join(struct.pack("<Q", word(i)) for i in range(first, last))[offset - first * 8:][:count]
        print(data.hex() if what == "hex" else hashlib.sha256(data).hexdigest())
        """

    private static func run(_ what: String, offset: Int64, count: Int) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script, what, String(offset), String(count)],
                                            timeout: 60)
        guard outcome.status == 0 else { throw TestServerError(message: "python failed: \(outcome.stderr)") }
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `count` bytes from `offset`, as lowercase hex.
    public static func hex(offset: Int64, count: Int) throws -> String { try run("hex", offset: offset, count: count) }

    /// The SHA-256 (lowercase hex) of the `count` bytes from `offset`.
    public static func sha256(offset: Int64 = 0, count: Int) throws -> String { try run("sha256", offset: offset, count: count) }
}
