import Foundation
import WirelensCapture

/// Writes a capture analysis as its `wirelens.capture/1` JSON document (docs/capture-schema.md).
public enum CaptureJSONRenderer {
    /// The document's bytes: indented with two spaces, `/` not escaped, one trailing newline.
    public static func render(_ report: CaptureReport) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(report))
        bytes.append(10)
        return bytes
    }
}
