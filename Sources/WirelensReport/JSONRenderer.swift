import Foundation
import WirelensCore

/// Writes a report as the `wirelens.report/1` JSON document and reads such a document back.
///
/// The shape of the document is defined by `Report+Codable.swift` in WirelensCore and described in
/// `docs/report-schema.md`; this type only fixes the output formatting.
public enum JSONRenderer {
    /// The report as pretty-printed JSON text, slashes unescaped, ending with a newline.
    ///
    /// Keys keep the order the types encode them in (a transaction's timeline in time order); the summary's
    /// maps write their keys in a fixed order, so the same report always gives the same bytes.
    public static func render(_ report: Report) throws -> String {
        String(decoding: try renderBytes(report), as: UTF8.self)
    }

    /// The same document as UTF-8 bytes, without the copy into a String (large runs write tens of MB).
    ///
    /// Reports of more than `compactAbove` tasks are written compact (no indentation): 20 000 tasks make a document
    /// of tens of MB, a third of it spaces. `wirelens render REPORT --format json` indents any report.
    public static func renderBytes(_ report: Report, compactAbove: Int = Int.max) throws -> [UInt8] {
        var bytes = try StreamingJSONEncoder(prettyPrinted: report.tasks.count <= compactAbove).encode(report)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a `wirelens.report/1` document; throws a `DecodingError` for any other document.
    public static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
