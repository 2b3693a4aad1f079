/// One of N instances that split one configuration between them (`--shard K/N`): the instance runs the checks whose
/// name's FNV-1a 64 hash (`NameHash`) modulo N is K − 1.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based: 1…count.
    public let index: Int
    public let count: Int

    /// The most instances a configuration may be split between.
    public static let maxCount = 1024

    /// A shard; nil unless 1 ≤ index ≤ count ≤ `maxCount`.
    public init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maxCount, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`; the failure is one line saying what to write.
    public static func parse(_ text: String) -> Result<Shard, Refusal> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.count <= 6 && part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard parts.count == 2, digits(parts[0]), digits(parts[1]), let k = Int(parts[0]), let n = Int(parts[1]) else {
            return .failure(Refusal(text: text, reason: "is not K/N; write e.g. 1/2 (the first of two instances)"))
        }
        guard n >= 1, n <= maxCount else {
            return .failure(Refusal(text: text, reason: "needs N from 1 to \(maxCount)"))
        }
        guard let shard = Shard(index: k, count: n) else {
            return .failure(Refusal(text: text, reason: "needs K from 1 to N (\(n)): shards are numbered from 1"))
        }
        return .success(shard)
    }

    /// True when the check named `name` belongs to this shard.
    public func contains(_ name: String) -> Bool {
        Int(NameHash.fnv1a64(name) % UInt64(count)) == index - 1
    }

    /// The checks of this shard, in their order.
    public func select(_ checks: [CheckDefinition]) -> [CheckDefinition] {
        checks.filter { contains($0.name) }
    }

    public var description: String { "\(index)/\(count)" }

    /// Why a `--shard` text was refused.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        public let text: String
        public let reason: String

        public var description: String { "--shard '\(text)' \(reason)" }
    }
}
