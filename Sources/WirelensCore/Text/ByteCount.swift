/// A number of bytes, zero or more, the one rule of every size flag and configuration key: a number with a unit
/// (`512KB`, `10MiB`) or a bare number of bytes (`ByteSize.parse`).
package struct ByteCount: TextParsable, Equatable {
    package let bytes: Int64

    package init(parsing text: String) throws(ValueRefusal) {
        guard let bytes = ByteSize.parse(text) else {
            throw ValueRefusal("'\(text)' is not a size; write e.g. 10MiB, 512KB or 4096")
        }
        self.bytes = bytes
    }
}
