/// One HTTP header line as a name and a value.
public struct HeaderField: Sendable, Codable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`; returns nil when there is no colon or no name.
    ///
    /// The name loses surrounding spaces and tabs, the value spaces, tabs, CR and LF (HTTP's optional white
    /// space and the line end), read on the UTF-8 bytes: every response's header lines pass through here.
    public static func parse(_ line: String) -> HeaderField? {
        let utf8 = line.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = trimmed(line[..<colon], newlines: false)
        guard !name.isEmpty, !name.utf8.contains(UInt8(ascii: " ")) else { return nil }
        return HeaderField(name: name, value: trimmed(line[utf8.index(after: colon)...], newlines: true))
    }

    /// `text` without the ASCII white space at either end (spaces and tabs, and CR and LF when `newlines`).
    static func trimmed(_ text: Substring, newlines: Bool) -> String {
        func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || (newlines && (byte == 0x0D || byte == 0x0A))
        }
        let utf8 = text.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, isSpace(utf8[start]) { start = utf8.index(after: start) }
        while start < end {
            let last = utf8.index(before: end)
            guard isSpace(utf8[last]) else { break }
            end = last
        }
        // Both ends are next to ASCII bytes, so they are character boundaries.
        return String(text[start..<end])
    }
}
