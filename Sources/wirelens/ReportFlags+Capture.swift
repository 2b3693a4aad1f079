import Foundation
import WirelensCapture
import WirelensConcurrency
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
            case .json, .har, .html: try emit(CaptureJSONRenderer.render(report))
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

    /// Analyses `file` and writes its report at the same time; returns the exit code and the analysis' outcome
    /// (nil when the report could not be written). JSON gets every connection as it finishes, encoded and written
    /// on a thread of its own (`CaptureSession.stream`); text lists the first `CaptureTextRenderer.connectionLimit`
    /// connections of the capture (each with at most `exchangeLimit` exchanges), and the analysis hands over no
    /// more.
    func deliver(streaming file: PacketFile, until stop: StopRequest,
                 keyLog: KeyLog?) -> (status: Int32, outcome: CaptureAnalyzer.Outcome?) {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        var final: CaptureAnalyzer.Outcome?
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            case .json, .har, .html:  // HAR and HTML are refused before the analysis runs.
                final = try withoutActuallyEscaping(emit) { emit in
                    let writer = ConnectionJSONWriter(stream: try CaptureJSONRenderer.Stream(head: CaptureAnalyzer.head(of: file)),
                                                      emit: emit)
                    // The write-behind thread may release its closure (and the writer) only after it was joined.
                    defer { writer.release() }
                    let outcome = try CaptureSession.stream(file, until: stop, keyLog: keyLog) { try writer.add($0) }
                    try writer.finish(outcome.report)
                    return outcome
                }
            case .text:
                let renderer = CaptureTextRenderer(color: color)
                // Only the lines of the first connections are kept, not the connections with all their exchanges.
                var listed: [(index: Int, lines: [String])] = []
                let outcome = CaptureAnalyzer.analyze(file, until: stop, keyLog: keyLog,
                                                      handOverLimit: renderer.connectionLimit) { connection in
                    if connection.index < renderer.connectionLimit {
                        listed.append((connection.index, renderer.connectionLines(connection)))
                    }
                }
                let lines = listed.sorted { $0.index < $1.index }.map(\.lines)
                try emit(Array(renderer.render(outcome.report, listed: lines).utf8))
                final = outcome
            }
        }
        if let failure = write(produce) { return (failure, nil) }
        if !quiet, let reportPath, let final {
            Console.error("\(final.report.summary.connections) connections, \(final.report.summary.exchanges) exchanges; "
                + "report written to \(reportPath)")
        }
        return (ExitStatus.success.rawValue, final)
    }
}
