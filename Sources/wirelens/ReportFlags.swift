import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe
import WirelensReport

/// The report flags every transfer command shares, and the writing of its report; `Format` is the formats the
/// command writes (`ReportFormat` for probe runs, fewer for compare and capture analyze), so that its help lists
/// the ones it accepts and no other.
struct ReportFlags<Format: ReportFormatChoice>: ParsableArguments {
    @Option(name: .customLong("format"), help: Format.help)
    var choice: Format = .text

    /// The report's format.
    var format: ReportFormat { choice.reportFormat }

    @Option(name: .customLong("report"), help: "Write the report to this file instead of stdout.")
    var reportPath: String?

    @Flag(name: .customLong("no-color"), help: "No colour in text output.")
    var noColor = false

    @Flag(name: .customLong("caveats"), help: "Text output: every caveat in full, not only the lines that change how a number reads (JSON has them all).")
    var allCaveats = false

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No messages but errors.")
    var quietFlag = false

    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No messages, not even errors (with -S: errors only), as curl -s.")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s: still write errors, as curl -sS.")
    var showError = false

    /// No progress and no messages but errors (`-q`, `-s`).
    var quiet: Bool { quietFlag || silent }

    /// True when not even errors go to stderr (`-s` without `-S`).
    var silencesErrors: Bool { silent && !showError }

    /// JSON reports of more tasks than this are written compact, to keep large reports small and fast.
    static var prettyJSONLimit: Int { 1000 }

    /// Checks, before anything runs, that the report file can be written (`ReportFile.checkWritable`): a path
    /// that cannot is one line and exit 3 before the work starts.
    func check() throws(CommandFailure) {
        if let reportPath { try ReportFile.checkReport(reportPath) }
    }

    /// Writes what `produce` emits to the report file (or stdout when there is none); returns the exit code of a
    /// failure, nil on success. A report file that fails while it is written is one line and exit 3: `produce` runs
    /// once, never again to stdout, as it may be the whole analysis.
    func write(_ produce: (_ emit: ([UInt8]) throws -> Void) throws -> Void) -> Int32? {
        do {
            if let reportPath {
                do {
                    try ReportFile.write(to: reportPath, produce)
                } catch let error as ReportFile.WriteError {
                    Console.error("cannot write report '\(reportPath)': \(error)")
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
    /// - Parameter failures: what the failed tasks decide, when the report no longer holds its tasks; nil takes
    ///   them from the report's tasks.
    func deliver(_ report: Report, outcome: ExitStatus? = nil, failures: TaskFailures? = nil) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            case .json: try JSONRenderer.render(report, compactAbove: Self.prettyJSONLimit, emit: emit)
            case .text: try emit(Array(TextRenderer(color: color, allCaveats: allCaveats).render(report).utf8))
            case .har: try emit(HARRenderer.render(report))
            case .html: try emit(Array(HTMLRenderer.render(report).utf8))
            }
        }
        if let failure = write(produce) { return failure }
        return close(report, outcome: outcome, failures: failures ?? TaskFailures(report.tasks))
    }

    /// The closing messages of a written report (interruption, first failure, where the report went); returns
    /// the exit code: `outcome` when the command decided it, else what the failed tasks decide.
    func close(_ report: Report, outcome: ExitStatus? = nil, failures: TaskFailures) -> Int32 {
        let status = outcome ?? ErrorExit.status(of: failures, interrupted: report.interrupted)
        if report.interrupted {
            Console.error("interrupted: the report holds the \(report.summary.tasks) tasks gathered so far")
        }
        if outcome != nil {
            if !quiet, let reportPath { Console.error("report written to \(reportPath)") }
            return status.rawValue
        }
        if status != .success, let first = failures.first {
            let more = failures.count > 1 ? " (and \(failures.count - 1) more failed tasks)" : ""
            Console.error("\(first.url): \(first.error.errorClass.rawValue): \(first.error.message)\(more)")
        }
        if !quiet, let reportPath {
            Console.error("\(report.summary.tasks) tasks, \(report.summary.failed) failed; report written to \(reportPath)")
        }
        return status.rawValue
    }
}
