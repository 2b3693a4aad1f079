import ArgumentParser
import Foundation
import WirelensCompare
import WirelensCore
import WirelensReport

/// `wirelens render REPORT.json`: shows a saved JSON report as text (or re-encodes it).
struct RenderCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Show a saved wirelens.report/2 or /1 report (or a wirelens.compare/1 document) as text or HTML.",
        discussion: "--format json writes the current version (wirelens.report/2): a /1 report is converted, at --detail full unless --detail standard is given.")

    @Argument(help: "A JSON report written by 'wirelens probe --format json'.")
    var path: String

    @Option(help: "Output format: text, json, har (HAR 1.2) or html (one self-contained page).")
    var format: ReportFormat = .text

    @Flag(name: .customLong("no-color"), help: "No colour in text output.")
    var noColor = false

    @Option(name: .customLong("detail"), help: "JSON: write the report at this detail (standard or full); by default at its own (a wirelens.report/1 report's is full). A standard report cannot be written full: it holds no offsetsMs, curlTimersUs or tcp samples.")
    var detail: ReportDetail?

    @Flag(name: .customLong("caveats"), help: "Text output: every caveat in full, not only the lines that change how a number reads.")
    var allCaveats = false

    /// The `schema` key of a document, to tell a compare document from a report.
    private struct SchemaProbe: Decodable { let schema: String? }

    /// Renders the report.
    func run() async throws {
        var report: Report
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            if (try? JSONDecoder().decode(SchemaProbe.self, from: data))?.schema == CompareDocument.schemaID {
                var document = try JSONDecoder().decode(CompareDocument.self, from: data)
                document.url = Redactor.url(document.url)  // an older version's document may hold secrets
                for i in document.runs.indices { try level(&document.runs[i].report) }
                return try renderCompare(document)
            }
            report = try JSONRenderer.decode(data)
        } catch let error as DecodingError {
            throw CommandFailure(.usage, "'\(path)' is not a \(Report.schemaID) report: \(Self.describe(error))")
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(.localFile, "cannot read report '\(path)': \(error.localizedDescription)")
        }
        try level(&report)
        switch format {
        case .text:
            let color = Console.colorsStdout(noColor: noColor)
            try ReportFile.writeStandardOutput(Array(TextRenderer(color: color, allCaveats: allCaveats).render(report).utf8))
        case .json, .har, .html:
            do {
                let bytes = switch format {
                case .har: try HARRenderer.render(report)
                case .html: Array(HTMLRenderer.render(report).utf8)
                default: Array(try JSONRenderer.render(report).utf8)
                }
                try ReportFile.writeStandardOutput(bytes)
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure(.internalError, "could not encode the report: \(error)")
            }
        }
    }

    /// Sets the report's detail to `--detail`, when given; a report written at `standard` cannot be made `full`.
    private func level(_ report: inout Report) throws(CommandFailure) {
        guard let detail else { return }
        guard !(detail.keepsDebugMembers && !report.detail.keepsDebugMembers) else {
            throw CommandFailure(.usage, "'\(path)' was written at --detail \(report.detail.rawValue): it holds no "
                                     + "offsetsMs, curlTimersUs or tcp samples to write at --detail full; run the probe again with --detail full")
        }
        report.detail = detail
    }

    /// Writes a compare document as text, HTML or (re-encoded) JSON; HAR is refused.
    private func renderCompare(_ document: CompareDocument) throws {
        let bytes: [UInt8]
        switch format {
        case .har:
            throw CommandFailure(.usage, "--format har is for probe reports; a compare document renders as text, json or html")
        case .text: bytes = Array(CompareTextRenderer(color: Console.colorsStdout(noColor: noColor)).render(document).utf8)
        case .html: bytes = Array(HTMLRenderer.render(document).utf8)
        case .json: bytes = try StreamingJSONEncoder(prettyPrinted: true).encode(document) + [UInt8(ascii: "\n")]
        }
        try ReportFile.writeStandardOutput(bytes)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
             .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
