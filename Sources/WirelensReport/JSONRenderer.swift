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
        var whole: [UInt8] = []
        try render(report, compactAbove: compactAbove) { whole.append(contentsOf: $0) }
        return whole
    }

    /// The same document handed to `emit` in pieces of about `chunkSize` bytes, so that a report of tens
    /// of MB is written through one small buffer instead of being held whole in memory.
    public static func render(_ report: Report, compactAbove: Int = Int.max, chunkSize: Int = 1 << 20,
                              emit: ([UInt8]) throws -> Void) throws {
        guard report.tasks.count > compactAbove else {
            var bytes = try StreamingJSONEncoder(prettyPrinted: true).encode(report)
            bytes.append(UInt8(ascii: "\n"))
            return try emit(bytes)
        }
        // Compact: everything but the tasks through Codable, ending in `"tasks":[]}`; the tasks, the bulk of a
        // large report, through TaskJSONWriter in between.
        var shell = report
        shell.tasks = []
        var bytes = try StreamingJSONEncoder(prettyPrinted: false).encode(shell)
        guard bytes.suffix(2).elementsEqual("]}".utf8) else { throw RenderError.unexpectedShape }
        bytes.removeLast(2)
        bytes.reserveCapacity(chunkSize + (1 << 16))
        for i in report.tasks.indices {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            TaskJSONWriter.append(report.tasks[i], to: &bytes)
            if bytes.count >= chunkSize {
                try emit(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        bytes.append(contentsOf: "]}\n".utf8)
        try emit(bytes)
    }

    /// The report's Codable form did not end with its tasks array, which the compact path splices into.
    enum RenderError: Error { case unexpectedShape }

    /// Reads a `wirelens.report/1` document; throws a `DecodingError` for any other document.
    public static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
