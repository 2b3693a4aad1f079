import Foundation

/// A socket buffer size (SO_SNDBUF, SO_RCVBUF) from 1 KiB to 64 MiB, and whether its text named a unit (a flag
/// may refuse a bare number: 64 could mean bytes or KiB).
public struct SocketBufferSize: TextParsable, Equatable {
    public let bytes: Int
    /// True when the text ended in a unit (`64KiB`), false for a bare number of bytes.
    public let hasUnit: Bool

    /// The sizes a kernel socket buffer is given.
    public static let range: ClosedRange<Int64> = 1024...(64 << 20)

    public init(parsing text: String) throws(ValueRefusal) {
        guard let bytes = ByteSize.parse(text), Self.range.contains(bytes) else { throw Self.refusal(text) }
        self.bytes = Int(bytes)
        hasUnit = text.trimmingCharacters(in: .whitespaces).last?.isLetter == true
    }

    /// The refusal of `text`; `unitRequired` says that a bare number is refused too.
    public static func refusal(_ text: String, unitRequired: Bool = false) -> ValueRefusal {
        ValueRefusal("'\(text)' is not a size from 1KiB to 64MiB\(unitRequired ? " with its unit" : ""); write e.g. 64KiB")
    }
}
