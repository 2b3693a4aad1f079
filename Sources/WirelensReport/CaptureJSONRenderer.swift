import WirelensCapture

/// Writes a capture analysis as its `wirelens.capture/1` JSON document (docs/capture-schema.md).
public enum CaptureJSONRenderer {
    /// Reports of more connections than this are written compact, like probe reports of many tasks.
    public static let prettyLimit = 1000

    /// The document's bytes: keys in the documented order, indented with two spaces up to `prettyLimit`
    /// connections, `/` not escaped, one trailing newline.
    public static func render(_ report: CaptureReport) throws -> [UInt8] {
        var whole: [UInt8] = []
        try render(report) { whole.append(contentsOf: $0) }
        return whole
    }

    /// The same document handed to `emit` piece by piece: everything before the connections, then one
    /// connection at a time, so that a capture of 100 000 exchanges never holds its whole document.
    public static func render(_ report: CaptureReport, emit: ([UInt8]) throws -> Void) throws {
        let pretty = report.connections.count <= prettyLimit
        let encoder = StreamingJSONEncoder(prettyPrinted: pretty)
        var head = report
        head.connections = []
        var bytes = try encoder.encode(head)
        // The head ends with `"connections": []` and the closing brace: open the array instead.
        let tail: [UInt8] = Array((pretty ? "[]\n}" : "[]}").utf8)
        guard !report.connections.isEmpty, bytes.count >= tail.count,
              Array(bytes.suffix(tail.count)) == tail else {
            try emit(bytes + [10])
            return
        }
        bytes.removeLast(tail.count - 1)  // keep "["
        try emit(bytes)
        let indent: [UInt8] = Array("\n    ".utf8)
        for (i, connection) in report.connections.enumerated() {
            let piece = try encoder.encode(connection)
            var out: [UInt8] = []
            out.reserveCapacity(piece.count + piece.count / 8)
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if pretty {
                out += indent
                // Nested two levels down (the document, then its `connections` array): four more spaces a line.
                for byte in piece {
                    if byte == 10 { out += indent } else { out.append(byte) }
                }
            } else {
                out += piece
            }
            try emit(out)
        }
        try emit(Array((pretty ? "\n  ]\n}\n" : "]}\n").utf8))
    }
}
