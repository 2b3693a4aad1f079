/// Indents compact JSON text the way `JSONWriter` indents a document it writes pretty: two spaces a level, one
/// member per line, `": "` after a key, `{}` and `[]` for empty containers.
///
/// How a schema with a byte writer of its own (which writes compact JSON only) appears in an indented document:
/// its compact bytes are written once and indented here, so that the byte writer stays the schema's only writer.
package enum JSONIndenter {
    /// Appends `compact` (one JSON value, without whitespace outside strings) to `out`, indented as a value whose
    /// own line is at `level`: its members at `level + 1`, its closing bracket at `level`.
    package static func append(_ compact: [UInt8], level: Int, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + compact.count + compact.count / 2)
        compact.withUnsafeBufferPointer { text in
            var depth = level
            var opened = false
            var i = 0
            while i < text.count {
                let byte = text[i]
                if opened {
                    opened = false
                    if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                        depth -= 1
                        out.append(byte)
                        i += 1
                        continue
                    }
                    JSONWriter.appendNewline(level: depth, to: &out)
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    out.append(byte)
                    depth += 1
                    opened = true
                    i += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    JSONWriter.appendNewline(level: depth, to: &out)
                    out.append(byte)
                    i += 1
                case UInt8(ascii: ","):
                    out.append(byte)
                    JSONWriter.appendNewline(level: depth, to: &out)
                    i += 1
                case UInt8(ascii: ":"):
                    out.append(byte)
                    out.append(UInt8(ascii: " "))
                    i += 1
                case UInt8(ascii: "\""):
                    // A string, copied whole through its closing quote (an escaped quote does not close it).
                    var end = i + 1
                    while end < text.count, text[end] != UInt8(ascii: "\"") {
                        end += text[end] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    end = min(end + 1, text.count)
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: text[i..<end]))
                    i = end
                default:
                    // A number or a literal, copied whole up to the next byte of structure.
                    var end = i + 1
                    while end < text.count, !isStructure(text[end]) { end += 1 }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: text[i..<end]))
                    i = end
                }
            }
        }
    }

    /// A byte that ends a number or a literal: a bracket, a separator or a string's quote.
    private static func isStructure(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","),
             UInt8(ascii: ":"), UInt8(ascii: "\""):
            return true
        default:
            return false
        }
    }
}
