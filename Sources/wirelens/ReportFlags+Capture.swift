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

    /// Analyses and writes a capture report at the same time: `analyze` reads the capture, handing each
    /// connection to the closure it is given, and returns the report's totals. JSON gets every connection as it
    /// finishes; text lists the first `CaptureTextRenderer.connectionLimit` connections of the capture (each with
    /// at most `exchangeLimit` exchanges).
    func deliver(streaming head: CaptureReport,
                 analyze: (_ onConnection: (TCPConnection) -> Void) throws -> CaptureReport) -> Int32 {
        // `write` takes an escaping producer; this one runs within the call.
        withoutActuallyEscaping(analyze) { analyze in deliver(streaming: head, escapingAnalyze: analyze) }
    }

    private func deliver(streaming head: CaptureReport,
                         escapingAnalyze analyze: @escaping ((TCPConnection) -> Void) throws -> CaptureReport) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        var final: CaptureReport?
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            case .json, .har, .html:  // HAR and HTML are refused before the analysis runs.
                // Connections are encoded and written on a thread of their own while the capture is read.
                let report = try withoutActuallyEscaping(emit) { emit in
                    let writer = ConnectionJSONWriter(stream: try CaptureJSONRenderer.Stream(head: head), emit: emit)
                    // The write-behind thread may release its closure (and the writer) only after it was joined.
                    defer { writer.release() }
                    // Batches of about 1024 exchanges: a hand-off per connection cost a thread wake-up each,
                    // and the batches in flight (up to six) stay near 2 MB.
                    let behind = WriteBehind<TCPConnection>(name: "wirelens-json-write", batchWeight: 1024,
                                                            weight: { 1 + $0.exchanges.count }) { try writer.add($0) }
                    let report = try analyze { behind.add($0) }
                    try behind.finish()
                    try writer.finish(report)
                    return report
                }
                final = report
            case .text:
                let renderer = CaptureTextRenderer(color: color)
                // Only the lines of the first connections are kept, not the connections with all their exchanges.
                var listed: [(index: Int, lines: [String])] = []
                let report = try analyze { connection in
                    if connection.index < renderer.connectionLimit {
                        listed.append((connection.index, renderer.connectionLines(connection)))
                    }
                }
                let lines = listed.sorted { $0.index < $1.index }.map(\.lines)
                try emit(Array(renderer.render(report, listed: lines).utf8))
                final = report
            }
        }
        if let failure = write(produce) { return failure }
        if !quiet, let reportPath, let final {
            Console.error("\(final.summary.connections) connections, \(final.summary.exchanges) exchanges; "
                + "report written to \(reportPath)")
        }
        return ExitStatus.success.rawValue
    }

    /// The connections a streamed report lists one by one: the text summary's first ones; nil for all (JSON). The
    /// analysis hands over no more (`CaptureAnalyzer.analyze(_:until:keyLog:handOverLimit:onConnection:)`).
    var connectionsListed: Int? {
        format == .text ? CaptureTextRenderer.defaultConnectionLimit : nil
    }
}
