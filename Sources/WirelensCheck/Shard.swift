/// One of N instances that split one configuration between them (`--shard K/N`): the instance runs the checks whose
/// name's FNV-1a 64 hash (`NameHash`) modulo N is K − 1.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 1-based: 1…count.
    package let index: Int
    package let count: Int

    /// The most instances a configuration may be split between.
    package static let maxCount = 1024

    /// A shard; nil unless 1 ≤ index ≤ count ≤ `maxCount`.
    package init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maxCount, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`; the failure is one line saying what to write.
    package static func parse(_ text: String) -> Result<Shard, Refusal> {
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
    package func contains(_ name: String) -> Bool {
        Int(NameHash.fnv1a64(name) % UInt64(count)) == index - 1
    }

    /// The checks of this shard, in their order.
    package func select(_ checks: [CheckDefinition]) -> [CheckDefinition] {
        checks.filter { contains($0.name) }
    }

    package var description: String { "\(index)/\(count)" }

    /// Why a `--shard` text was refused.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let text: String
        package let reason: String

        package var description: String { "--shard '\(text)' \(reason)" }
    }
}
