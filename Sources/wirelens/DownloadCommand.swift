import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe

/// `wirelens download URL -o FILE [--resume]`: downloads to a file, resumes a partial one, checks the length.
struct DownloadCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a URL to a file, resuming a partial file with a Range request and checking its length.",
        discussion: """
            With --resume, a file that already holds part of the resource is continued from its end \
            (Range: bytes=N-); a server that ignores the range sends the whole resource again, which replaces \
            the file. Each retry resumes from where the file then ends. The length is checked against \
            Content-Range or Content-Length. A failed download keeps its partial file for a later --resume.
            """)

    @Argument(help: "An http:// or https:// URL.")
    var url: String

    @Option(name: [.customShort("o"), .customLong("output")], help: "The file to write.")
    var output: String

    @Flag(help: "Continue a partial file from its end instead of starting again.")
    var resume = false

    @OptionGroup(title: "Retries")
    var retry: RetryFlags

    @OptionGroup(title: "Connections, protocol, timeouts and TLS")
    var protocols: ProtocolFlags

    @OptionGroup(title: "Connections, protocol, timeouts and TLS")
    var transfer: TransferFlags

    @OptionGroup(title: "Report")
    var report: ReportFlags<ReportFormat>

    @OptionGroup(title: "Report")
    var detail: DetailFlags

    @OptionGroup(title: "Report")
    var writeOut: WriteOutFlags

    /// The engine options, checked from the flags.
    private func checked() throws(UsageError) -> ProbeOptions {
        var options = try transfer.probeOptions(concurrency: 1, retries: 0, protocols: protocols)
        let retries = try retry.count() ?? 0
        if !resume && retries > 0 {
            throw UsageError("--retry on a download needs --resume: a retry continues the file from its end")
        }
        if resume, options.compressed {
            throw UsageError("--compressed and --resume do not go together: a range of a compressed answer is not a range of the file")
        }
        // The attempts are the download's own (ResumableDownload): the engine retries none.
        options.retry.maxTime = try retry.maxTime()
        return options
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
        try UsageError.checkURL(url)
        try writeOut.check(report: report.format, reportPath: report.reportPath)
    }

    /// Downloads, checks the length and writes the report.
    func run() async throws {
        var options = try checked()
        _ = try ProbePlan(urls: [url], method: "GET", uploadPath: nil, uploadSize: nil, repeatCount: 1,
                          outputPath: output)
        try TransferFlags.prepareCookies(options.cookies)
        try report.check()
        let printer = try writeOut.parsed().map(WriteOutPrinter.init)
        // The length check reads Content-Range and Content-Length.
        options.includeResponseHeaders = true
        let bytes = TransferProgress()
        let engine = try Engine(options: options, progress: bytes)
        let trap = SignalTrap { engine.cancel() }
        let download = ResumableDownload(url: url, path: output, resume: resume, retries: try retry.count() ?? 0)
        let started = MonotonicClock.wallMicros()
        // A long download shows its progress on stderr: bytes received in this run and the rate (the total is not
        // known before the answer, so no ETA); nothing in the first second, nothing with --quiet.
        let ticker = report.quiet ? nil : ProgressTicker { elapsed in
            ProgressSnapshot(elapsedMicros: elapsed, bytes: bytes.bytesReceived)
        }
        let outcome = await download.run(engine: engine, interrupted: { trap.fired })
        await ticker?.stop()
        let result = ProbeSession.report(command: "download", engine: engine, startedAt: started,
                                         interrupted: trap.fired, urls: [url], method: "GET", body: .none,
                                         repeatCount: 1, tasks: outcome.records)
        // The last attempt decides: an attempt that failed and was resumed by the next one is no failure.
        let lastStatus = ExitStatus.forTasks(Array(outcome.records.suffix(1)), interrupted: result.interrupted)
        let judged: ExitStatus
        let message: String?
        switch outcome.verdict {
        case .complete(let size):
            // A 416 to a file that already holds everything is success too.
            judged = result.interrupted ? .interrupted : .success
            let from = outcome.resumedFrom > 0 ? ", resumed from byte \(outcome.resumedFrom)" : ""
            // --compressed: the length checked is the encoded one; the file holds the decoded body.
            let final = outcome.records.last?.transactions.last
            let wire = final?.responseBodyWireBytes.flatMap { $0 == final?.responseBodyBytes ? nil : $0 }
            let bytes = wire.map { _ in "\(final?.responseBodyBytes ?? 0) bytes decoded from \(size)" } ?? "\(size) bytes"
            message = report.quiet ? nil : "\(output): \(bytes), length checked\(from)"
        case .short(let have, let expected):
            judged = lastStatus == .success ? .transfer : lastStatus
            let of = expected.map { " of \($0)" } ?? ""
            message = "\(output): incomplete, \(have)\(of) bytes; run again with --resume to continue"
        case .wrong(let reason):
            judged = lastStatus == .success ? .transfer : lastStatus
            message = "\(output): \(reason)"
        }
        // -w: a line per attempt; the last one's exit code is the download's.
        for (offset, record) in outcome.records.enumerated() {
            printer?.print(record, exitCode: offset == outcome.records.count - 1 ? judged : nil)
        }
        var detailed = result
        detailed.detail = detail.level
        let status = report.deliver(detailed, outcome: judged, writingOut: printer != nil)
        // A report that could not be written is the one line.
        let unwritten = status == ExitStatus.localFile.rawValue && judged != .localFile
        if let message, !unwritten { Console.error(message) }
        try ErrorExit.end(status)
    }
}
