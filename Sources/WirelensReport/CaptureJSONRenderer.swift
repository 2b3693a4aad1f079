import WirelensCapture

/// Writes a capture analysis as its `wirelens.capture/1` JSON document (docs/capture-schema.md).
public enum CaptureJSONRenderer {
    /// Reports of more connections than this are written compact, like probe reports of many tasks.
    public static let prettyLimit = 1000

    /// The document's bytes: keys in the documented order, indented with two spaces up to `prettyLimit`
    /// connections, `/` not escaped, one trailing newline.
    public static func render(_ report: CaptureReport) throws -> [UInt8] {
        var bytes = try StreamingJSONEncoder(prettyPrinted: report.connections.count <= prettyLimit).encode(report)
        bytes.append(10)
        return bytes
    }
}
