import Foundation
import WirelensCore

/// Writes a report as the `wirelens.report/1` JSON document and reads such a document back.
///
/// The shape of the document is defined by `Report+Codable.swift` in WirelensCore and described in
/// `docs/report-schema.md`; this type only fixes the output formatting.
public enum JSONRenderer {
    /// The report as pretty-printed JSON text, slashes unescaped, ending with a newline.
    ///
    /// Keys are sorted, so the same report always gives the same bytes: the summary's maps (phases,
    /// status codes, errors, protocols) are Swift dictionaries, whose order changes from run to run.
    public static func render(_ report: Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(report)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Reads a `wirelens.report/1` document; throws a `DecodingError` for any other document.
    public static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
