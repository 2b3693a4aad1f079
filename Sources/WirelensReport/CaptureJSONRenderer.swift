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
        // Connections sit two levels down (the document, then its `connections` array).
        var element = encoder
        element.baseIndent = 2
        let indent: [UInt8] = Array("\n    ".utf8)
        for (i, connection) in report.connections.enumerated() {
            var out: [UInt8] = i > 0 ? [UInt8(ascii: ",")] : []
            if pretty { out += indent }
            out += try element.encode(connection)
            try emit(out)
        }
        try emit(Array((pretty ? "\n  ]\n}\n" : "]}\n").utf8))
    }
}
