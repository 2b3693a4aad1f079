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

    /// The value of a `Name: value` line: after the first colon, without spaces, tabs, CR and LF at either end
    /// (as `HeaderField.parse` gives it); nil without a colon.
    static func value(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        return trimmedText(line, from: colon + 1)
    }

    /// The bytes of `line` from `start` on as text, without spaces, tabs, CR and LF at either end.
    private static func trimmedText(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> String {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = start
        var end = line.count
        while start < end, isSpace(line[start]) { start += 1 }
        while end > start, isSpace(line[end - 1]) { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    /// The status code of an `HTTP/x 200 …` status line, or nil for any other line.
    static func statusCode(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        guard line.count >= 12, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
              line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/"),
              let space = line.firstIndex(of: UInt8(ascii: " ")), space + 3 < line.count else { return nil }
        var code = 0
        for i in (space + 1)...(space + 3) {
            let digit = Int(line[i]) - 48
            guard digit >= 0, digit <= 9 else { return nil }
            code = code * 10 + digit
        }
        return code
    }

    /// The reason phrase of a status line (`OK` of `HTTP/1.1 200 OK`), empty when it has none (HTTP/2), without
    /// HTTP's white space and the line's CR LF at either end (read on the bytes: Foundation's trimming cost more than
    /// the rest of the header callback).
    static func reasonPhrase(_ line: UnsafeBufferPointer<UInt8>) -> String {
        guard let first = line.firstIndex(of: UInt8(ascii: " ")),
              let second = line[(first + 1)...].firstIndex(of: UInt8(ascii: " ")) else { return "" }
        return trimmedText(line, from: second + 1)
    }
}
