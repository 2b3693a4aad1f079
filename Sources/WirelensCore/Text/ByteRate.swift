import Foundation

/// A rate in bytes per second greater than zero, the one rule of every rate flag and configuration key: a size
/// with `/s` or `ps` after it, or without (`720KB/s`, `1MiBps`, `512KiB`).
package struct ByteRate: TextParsable, Equatable {
    package let bytesPerSecond: Int64

    package init(parsing text: String) throws(ValueRefusal) {
        var amount = Substring(text.trimmingCharacters(in: .whitespaces))
        for suffix in ["/s", "ps"] where amount.lowercased().hasSuffix(suffix) {
            amount = amount.dropLast(suffix.count)
            break
        }
        guard let bytes = ByteSize.parse(String(amount)), bytes > 0 else {
            throw ValueRefusal("'\(text)' is not a positive rate; write e.g. 720KB/s or 1MiB/s")
        }
        bytesPerSecond = bytes
    }
}
