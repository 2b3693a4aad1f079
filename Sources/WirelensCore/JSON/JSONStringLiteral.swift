/// A string as a JSON string literal: the one escaper of every JSON document Wirelens writes (reports, capture
/// reports, the target's answers), and the one rule for which bytes it escapes.
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
            for byte in utf8 where isEscaped(byte) {
                return false
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return true
        }
        if !plain { appendEscaped(text, to: &bytes) }
    }

    /// Whether a JSON string escapes `byte`: a control character, `"` or `\`.
    @inlinable @inline(__always)
    package static func isEscaped(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Nonzero when one of the eight bytes of `word` is one `isEscaped` names: the same test, eight bytes at once.
    ///
    /// `(x - 0x01…) & ~x & 0x80…` is nonzero exactly when a byte of `x` is zero (a borrow can only start at a
    /// zero byte), and `(x - 0x20…) & ~x & 0x80…` when one is below 0x20; bytes from 0x80 up set none of them.
    @inlinable @inline(__always)
    package static func escapedBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let controls = (word &- ones &* 0x20) & ~word
        return (controls | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs
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
