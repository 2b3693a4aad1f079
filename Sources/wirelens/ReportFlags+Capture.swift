import Foundation
import WirelensCapture
import WirelensCore
import WirelensReport

extension ReportFlags {
    /// Writes a capture report in the chosen format, to the report file or stdout; returns the exit code.
    func deliver(_ report: CaptureReport) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        let bytes: [UInt8]
        do {
            switch format {
            case .json: bytes = try CaptureJSONRenderer.render(report)
            case .text: bytes = Array(CaptureTextRenderer(color: color).render(report).utf8)
            }
        } catch {
            Console.error("could not encode the report: \(error)")
            return ExitStatus.internalError.rawValue
        }
        guard let reportPath else {
            ReportFile.writeAll(bytes, to: STDOUT_FILENO)
            return ExitStatus.success.rawValue
        }
        do {
            try ReportFile.write(to: reportPath) { emit in try emit(bytes) }
        } catch {
            Console.error("cannot write report '\(reportPath)': \(error); the report follows on stdout")
            ReportFile.writeAll(bytes, to: STDOUT_FILENO)
            return ExitStatus.localFile.rawValue
        }
        if !quiet {
            Console.error("\(report.summary.connections) connections, \(report.summary.exchanges) exchanges; "
                + "report written to \(reportPath)")
        }
        return ExitStatus.success.rawValue
    }
}
