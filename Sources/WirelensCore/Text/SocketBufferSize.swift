import Foundation

/// A socket buffer size (SO_SNDBUF, SO_RCVBUF) from 1 KiB to 64 MiB, and whether its text named a unit (a flag
/// may refuse a bare number: 64 could mean bytes or KiB).
package struct SocketBufferSize: TextParsable, Equatable {
    package let bytes: Int
    /// True when the text ended in a unit (`64KiB`), false for a bare number of bytes.
    package let hasUnit: Bool

    /// The sizes a kernel socket buffer is given.
    package static let range: ClosedRange<Int64> = 1024...(64 << 20)

    package init(parsing text: String) throws(ValueRefusal) {
        guard let bytes = ByteSize.parse(text), Self.range.contains(bytes) else { throw Self.refusal(text) }
        self.bytes = Int(bytes)
        hasUnit = text.trimmingCharacters(in: .whitespaces).last?.isLetter == true
    }

    /// The refusal of `text`; `unitRequired` says that a bare number is refused too.
    package static func refusal(_ text: String, unitRequired: Bool = false) -> ValueRefusal {
        ValueRefusal("'\(text)' is not a size from 1KiB to 64MiB\(unitRequired ? " with its unit" : ""); write e.g. 64KiB")
    }
}
