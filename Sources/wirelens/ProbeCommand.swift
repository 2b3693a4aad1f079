import ArgumentParser
import Foundation
import Synchronization
import WirelensCore
import WirelensProbe
import WirelensReport

/// `wirelens probe URL…`: runs HTTP(S) transfers and reports each transaction's timeline.
struct ProbeCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Run HTTP(S) requests through libcurl and report every transaction's phases.",
        discussion: "Option names follow curl's. Durations: 500ms, 15s, 2m, or a bare number of seconds; greater than 0. Sizes: 10MiB, 512KiB, 1GB.")

    @Argument(help: "One or more http:// or https:// URLs.")
    var urls: [String] = []

    @Option(name: [.customShort("X"), .customLong("request")], help: "HTTP method (default GET, or PUT with a body).")
    var method: String?

    @Option(name: [.customShort("T"), .customLong("upload-file"), .customLong("upload")],
            help: "Stream this file as the request body, PUT unless -X says otherwise (a pipe, such as /dev/stdin, with --upload-size: that many bytes; unlike curl, no -T -).")
    var uploadFile: String?

    @Option(name: [.customShort("d"), .customLong("data")],
            help: "POST this text (@FILE: the file without its line breaks; @-: stdin), form-encoded as curl's; repeatable, joined with &.")
    var data: [String] = []

    @Option(name: .customLong("data-binary"),
            help: "POST this text or @FILE as it is (one @FILE alone is streamed from disk); after any -d, joined with &.")
    var dataBinary: [String] = []

    @Option(name: .customLong("upload-size"),
            help: "Send a generated body of this size (with --upload PIPE: the first that many bytes of the pipe).")
    var uploadSize: FlagValue<ByteCount>?

    @Option(name: [.customShort("F"), .customLong("form")],
            help: "A multipart/form-data field: name=value or name=@file[;type=image/jpeg][;filename=x] (repeatable).")
    var form: [String] = []

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to this file.")
    var output: String?

    @Option(name: .customLong("repeat"), help: "Run the URL list this many times.")
    var repeatCount = 1

    @Option(help: "Tasks in flight at once.")
    var concurrency = 1

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

    @OptionGroup(title: "Wire capture")
    var wire: CaptureFlags

    /// The `-d` arguments, then the `--data-binary` ones, as curl's.
    private var requestData: [RequestData] {
        data.map { RequestData.parse($0, binary: false) } + dataBinary.map { RequestData.parse($0, binary: true) }
    }

    /// The engine options, the generated body's size and the form's fields, checked from the flags (no file is
    /// read).
    private func checked() throws(UsageError) -> (options: ProbeOptions, size: Int64?, fields: [FormField]) {
        guard !urls.isEmpty else { throw UsageError("give at least one URL, e.g. wirelens probe http://127.0.0.1:8080/") }
        let retries = try retry.count() ?? 0
        var options = try transfer.probeOptions(concurrency: concurrency, retries: retries, protocols: protocols)
        try retry.apply(count: retries, to: &options)
        if let method, let problem = RequestTextCheck.problem(method: method) { throw UsageError("-X: \(problem)") }
        guard repeatCount >= 1 else { throw UsageError("--repeat must be 1 or more, not \(repeatCount)") }
        if uploadFile == "-" {
            throw UsageError("-T - (stdin) is read as a pipe: give --upload /dev/stdin --upload-size N")
        }
        let size = try uploadSize.map { size throws(UsageError) in try size.value("--upload-size").bytes }
        // Both: the body is the first --upload-size bytes of a pipe, read once as they come.
        if uploadFile != nil, size != nil, urls.count * repeatCount > 1 || retries > 0 {
            throw UsageError("--upload PIPE with --upload-size reads the pipe once: give one URL, --repeat 1 and no --retry")
        }
        if !form.isEmpty, uploadFile != nil || size != nil {
            throw UsageError("give --form or --upload/--upload-size, not both: a form is the request's body")
        }
        if !requestData.isEmpty, !form.isEmpty || uploadFile != nil || size != nil {
            throw UsageError("give -d/--data-binary, --form or --upload, not two of them: each is the request's body")
        }
        let fields = try form.map { text throws(UsageError) in
            do throws(FormField.ParseError) { return try FormField.parse(text) } catch { throw UsageError(error.message) }
        }
        if output != nil, urls.count * repeatCount > 1 {
            throw UsageError("-o/--output takes one URL and --repeat 1; the report keeps every task's figures")
        }
        return (options, size, fields)
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
        for url in urls { try UsageError.checkURL(url) }
        try writeOut.check(report: report.format, reportPath: report.reportPath)
    }

    /// Runs the probe and writes its report; ends with the run's exit code.
    func run() async throws {
        // First: libcurl reads SSLKEYLOGFILE when it is initialised.
        let keyLog = try wire.prepareKeyLog(urls: urls)
        defer { keyLog?.remove() }
        var (options, size, fields) = try checked()
        try TransferFlags.prepareCookies(options.cookies)
        try report.check()
        try wire.check()
        let printer = try writeOut.parsed().map(WriteOutPrinter.init)
        if let cacert = options.caFile { _ = try ProbePlan.readableFileSize(cacert) }
        let ownType = options.headers.contains { $0.name.lowercased() == "content-type" }
        let plan = try ProbePlan(urls: urls, method: method, uploadPath: uploadFile, uploadSize: size,
                                 repeatCount: repeatCount, outputPath: output, form: fields, data: requestData,
                                 dataContentType: ownType ? nil : "application/x-www-form-urlencoded")
        // The text summary of many tasks shows each transaction's verdict, never its kernel facts: only the verdicts
        // are kept (a capture checks the whole report, and one task's detail shows its facts).
        let tasks = plan.round.count * plan.repeatCount
        if report.format == .text, tasks > 1, !wire.wanted { options.keepsTransactionFacts = false }
        let bytes = TransferProgress()
        let engine = try Engine(options: options, progress: bytes)
        let capture = wire.start(urls: urls, keyLog: keyLog)
        let trap = SignalTrap { engine.cancel() }
        // Long transfers show their progress on stderr (nothing in the first second, nothing with --quiet).
        let ticker = self.report.quiet ? nil : ProgressTicker { elapsed in
            ProgressSnapshot(elapsedMicros: elapsed, bytes: bytes.bytesAcknowledged + bytes.bytesReceived)
        }
        // Without a capture to check the tasks against, the text summary and large JSON reports are written as the
        // run goes: memory does not grow with --repeat.
        if capture == nil, self.report.streams(tasks: plan.round.count * plan.repeatCount) {
            try ErrorExit.end(await self.report.deliver(streaming: plan, detail: detail.level, engine: engine,
                                                        interrupted: { trap.fired },
                                                        runEnded: { await ticker?.stop() },
                                                        each: printer.map { printer in { printer.print($0) } }))
            return
        }
        // With -w, each task's line is printed as the task ends (in the order they end).
        var onTaskFinished: (@Sendable (TaskRecord) -> Void)?
        if let printer { onTaskFinished = { printer.print($0) } }
        var report = await ProbeSession.run(plan, engine: engine, interrupted: { trap.fired },
                                            onTaskFinished: onTaskFinished)
        report.detail = detail.level
        await ticker?.stop()
        Self.keptUntilExit.withLock { $0 = report }
        let status = self.report.deliver(report, writingOut: printer != nil)
        guard let capture else { return try ErrorExit.end(status) }
        try ErrorExit.end(wire.finish(capture, report: report, status: status,
                                      textToStdout: self.report.format == .text && self.report.reportPath == nil
                                          && printer == nil))
    }

    /// The run's report, kept until the process exits: freeing a large run's records one by one would
    /// only delay the exit.
    private static let keptUntilExit = Mutex<Report?>(nil)
}
