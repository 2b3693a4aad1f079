import Foundation
import WirelensCapture
import WirelensCore
import WirelensReport

extension ReportFlags {
    /// Writes a capture report in the chosen format, to the report file or stdout; returns the exit code.
    ///
    /// JSON is written as it is encoded, connection by connection, never held whole.
    func deliver(_ report: CaptureReport) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            // HAR and HTML are refused before the analysis runs (they describe HTTP transactions, not a capture).
            case .json, .har, .html: try CaptureJSONRenderer.render(report, emit: emit)
            case .text: try emit(Array(CaptureTextRenderer(color: color).render(report).utf8))
            }
        }
        if let failure = write(produce) { return failure }
        if !quiet, let reportPath {
            Console.error("\(report.summary.connections) connections, \(report.summary.exchanges) exchanges; "
                + "report written to \(reportPath)")
        }
        return ExitStatus.success.rawValue
    }
}
