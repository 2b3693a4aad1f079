/// Indents compact JSON text the way `JSONWriter` indents a document it writes pretty: two spaces a level, one
/// member per line, `": "` after a key, `{}` and `[]` for empty containers.
///
/// How a schema with a byte writer of its own (which writes compact JSON only) appears in an indented document:
/// its compact bytes are written once and indented here, so that the byte writer stays the schema's only writer.
package enum JSONIndenter {
    /// Appends `compact` (one JSON value, without whitespace outside strings) to `out`, indented as a value whose
    /// own line is at `level`: its members at `level + 1`, its closing bracket at `level`.
    package static func append(_ compact: some Collection<UInt8>, level: Int, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + compact.count + compact.count / 2)
        var depth = level
        var inString = false
        var escaped = false
        var opened = false
        for byte in compact {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            let closing = byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
            if opened {
                opened = false
                if closing {
                    depth -= 1
                    out.append(byte)
                    continue
                }
                JSONWriter.appendNewline(level: depth, to: &out)
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                depth += 1
                opened = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                JSONWriter.appendNewline(level: depth, to: &out)
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                JSONWriter.appendNewline(level: depth, to: &out)
            case UInt8(ascii: ":"):
                out.append(byte)
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "\""):
                out.append(byte)
                inString = true
            default:
                out.append(byte)
            }
        }
    }
}
