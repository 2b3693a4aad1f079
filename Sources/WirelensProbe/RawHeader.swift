/// Byte-level checks on raw header lines, so that the header callback allocates nothing for lines it ignores.
enum RawHeader {
    /// True when the line starts with `name` (ASCII, compared case-insensitively) followed by a colon.
    /// `name` must be lowercase.
    static func hasName(_ line: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[count] == UInt8(ascii: ":") else { return false }
        let expected = name.utf8Start
        for i in 0..<count {
            var c = line[i]
            if c >= 65 && c <= 90 { c += 32 }
            if c != expected[i] { return false }
        }
        return true
    }
}
