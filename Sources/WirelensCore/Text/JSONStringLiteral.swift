/// A string as a JSON string literal: the one escaper of every JSON document Wirelens writes (reports, capture
/// reports, the target's answers).
///
/// RFC 8259's escapes: `"` and `\` with a backslash, newline, carriage return and tab by their letters, the other
/// control characters as `\u00xx` (lowercase hex); everything else as its UTF-8, unescaped.
package enum JSONStringLiteral {
    /// Appends `text`, quoted and escaped, to `bytes`.
    @inlinable
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        // Most strings need no escaping: write them with one append.
        var text = text
        let plain = text.withUTF8 { utf8 -> Bool in
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !plain { appendEscaped(text, to: &bytes) }
    }

    /// `append` for text with a byte to escape.
    @usableFromInline
    static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text` quoted and escaped, as a string.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
