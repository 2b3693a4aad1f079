import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe
import WirelensReport

/// The report flags every transfer command shares, and the writing of its report.
struct ReportFlags: ParsableArguments {
    @Option(help: "Report format: json (indented up to 1000 tasks, compact beyond), text, har (HAR 1.2) or html (one self-contained page).")
    var format: ReportFormat = .text

    @Option(name: .customLong("report"), help: "Write the report to this file instead of stdout.")
    var reportPath: String?

    @Flag(name: .customLong("no-color"), help: "No colour in text output.")
    var noColor = false

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No messages but errors.")
    var quiet = false

    /// JSON reports of more tasks than this are written compact, to keep large reports small and fast.
    static let prettyJSONLimit = 1000

    /// Checks, before anything runs, that the report file can be written.
    func check() throws(ProbeError) {
        if let reportPath { try ProbePlan.checkWritable(reportPath) }
    }

    /// Writes what `produce` emits to the report file (or stdout when there is none, or when the file cannot
    /// be written); returns the exit code of a failure, nil on success.
    func write(_ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void) -> Int32? {
        do {
            if let reportPath {
                do {
                    try ReportFile.write(to: reportPath, produce)
                } catch let error as ReportFile.WriteError {
                    Console.error("cannot write report '\(reportPath)': \(error); the report follows on stdout")
                    try produce { ReportFile.writeAll($0, to: STDOUT_FILENO) }
                    return ExitStatus.localFile.rawValue
                }
            } else {
                try produce { ReportFile.writeAll($0, to: STDOUT_FILENO) }
            }
        } catch {
            Console.error("could not encode the report: \(error)")
            return ExitStatus.internalError.rawValue
        }
        return nil
    }

    /// Writes the report and the closing messages; returns the exit code.
    ///
    /// - Parameter outcome: the run's exit status when the command decided it itself (an upload, whose retried
    ///   attempts are failed tasks of a run that succeeded); nil derives it from the tasks and names the first failure.
    func deliver(_ report: Report, outcome: ExitStatus? = nil) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            case .json: try JSONRenderer.render(report, compactAbove: Self.prettyJSONLimit, emit: emit)
            case .text: try emit(Array(TextRenderer(color: color).render(report).utf8))
            case .har: try emit(HARRenderer.render(report))
            case .html: try emit(Array(HTMLRenderer.render(report).utf8))
            }
        }
        if let failure = write(produce) { return failure }
        let status = outcome ?? ExitStatus.forTasks(report.tasks, interrupted: report.interrupted)
        if report.interrupted {
            Console.error("interrupted: the report holds the \(report.tasks.count) tasks gathered so far")
        }
        if outcome != nil {
            if !quiet, let reportPath { Console.error("report written to \(reportPath)") }
            return status.rawValue
        }
        // Indices, not elements: iterating the records would copy (and retain) each one.
        let failed = report.tasks.indices.filter {
            if let error = report.tasks[$0].error { error.errorClass != .cancelled } else { false }
        }
        if status != .success, let first = failed.first, let error = report.tasks[first].error {
            let more = failed.count > 1 ? " (and \(failed.count - 1) more failed tasks)" : ""
            Console.error("\(report.tasks[first].url): \(error.errorClass.rawValue): \(error.message)\(more)")
        }
        if !quiet, let reportPath {
            Console.error("\(report.summary.tasks) tasks, \(report.summary.failed) failed; report written to \(reportPath)")
        }
        return status.rawValue
    }
}
