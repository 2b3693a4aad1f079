import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe
import WirelensReport

/// `wirelens probe URL…`: runs HTTP(S) transfers and reports each transaction's timeline.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Run HTTP(S) requests through libcurl and report every transaction's phases.",
        discussion: "Option names follow curl's. Durations: 500ms, 15s, 2m. Sizes: 10MiB, 512KiB, 1GB.")

    @Argument(help: "One or more http:// or https:// URLs.")
    var urls: [String] = []

    @Option(name: [.customShort("X"), .customLong("request")], help: "HTTP method (default GET, or PUT with a body).")
    var method: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "Extra request header \"Name: value\" (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("upload"), help: "Stream this file as the request body.")
    var uploadFile: String?

    @Option(name: .customLong("upload-size"), help: "Send a generated body of this size.")
    var uploadSize: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the response body to this file.")
    var output: String?

    @Option(name: .customLong("repeat"), help: "Run the URL list this many times.")
    var repeatCount = 1

    @Option(help: "Tasks in flight at once.")
    var concurrency = 1

    @Option(name: .customLong("max-host-connections"), help: "Connections per host at most (0: unlimited).")
    var maxHostConnections = 0

    @Option(name: .customLong("max-connections"), help: "Connections in total at most (0: unlimited).")
    var maxConnections = 0

    @Flag(name: .customLong("no-reuse"), help: "A fresh connection for every transaction (no keep-alive reuse).")
    var noReuse = false

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only.")
    var http11 = false

    @Flag(name: .customLong("http2"), help: "Use HTTP/2 over TLS (ALPN), HTTP/1.1 over clear text.")
    var http2 = false

    @Flag(name: .customLong("http2-prior-knowledge"), help: "Use HTTP/2 over clear text without upgrade (h2c).")
    var http2PriorKnowledge = false

    @Flag(name: .customLong("no-multiplex"), help: "Do not multiplex HTTP/2 streams over one connection.")
    var noMultiplex = false

    @Option(name: .customLong("connect-timeout"), help: "Give up connecting after this long.")
    var connectTimeout: String?

    @Option(name: .customLong("idle-timeout"), help: "Fail a transfer when no byte moves for this long.")
    var idleTimeout: String?

    @Option(name: .customLong("timeout"), help: "Fail a task that takes longer than this in all.")
    var totalTimeout: String?

    @Option(help: "Retries for connect errors, timeouts, 5xx and 429 (exponential backoff with jitter).")
    var retries = 0

    @Option(name: .customLong("max-redirs"), help: "Redirects to follow, each its own transaction (0: none).")
    var maxRedirects = 10

    @Option(help: "Proxy URL.")
    var proxy: String?

    @Option(help: "CA certificates file to verify servers with.")
    var cacert: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify TLS certificates.")
    var insecure = false

    @Flag(name: .customLong("no-expect-100"), help: "Do not send Expect: 100-continue before request bodies.")
    var noExpect100 = false

    @Flag(name: .customLong("include-headers"), help: "Keep response headers (redacted) in the report.")
    var includeHeaders = false

    @Option(help: "Report format: json (indented up to 1000 tasks, compact beyond) or text.")
    var format: ReportFormat = .text

    @Option(name: .customLong("report"), help: "Write the report to this file instead of stdout.")
    var reportPath: String?

    @Flag(name: .customLong("no-color"), help: "No colour in text output.")
    var noColor = false

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No messages but errors.")
    var quiet = false

    /// JSON reports of more tasks than this are written compact, to keep large reports small and fast.
    static let prettyJSONLimit = 1000

    /// Runs the probe and returns the exit code.
    func execute() async -> Int32 {
        let plan: ProbePlan
        let options: ProbeOptions
        do {
            guard !urls.isEmpty else { throw UsageError("give at least one URL, e.g. wirelens probe http://127.0.0.1:8080/") }
            options = try probeOptions()
            let size = try uploadSize.map { text throws(UsageError) in
                guard let bytes = ByteSize.parse(text) else {
                    throw UsageError("--upload-size '\(text)' is not a size; write e.g. 10MiB, 512KB or 4096")
                }
                return bytes
            }
            if uploadFile != nil, size != nil { throw UsageError("give --upload or --upload-size, not both") }
            if output != nil, urls.count * repeatCount > 1 {
                throw UsageError("-o/--output takes one URL and --repeat 1; the report keeps every task's figures")
            }
            if let reportPath { try ProbePlan.checkWritable(reportPath) }
            if let cacert = options.caFile { _ = try ProbePlan.readableFileSize(cacert) }
            plan = try ProbePlan(urls: urls, method: method, uploadPath: uploadFile, uploadSize: size,
                                 repeatCount: repeatCount, outputPath: output)
        } catch let error as UsageError {
            Console.error(error.message)
            return ExitStatus.usage.rawValue
        } catch let error as ProbeError {
            Console.error(error.description)
            return error.exitStatus.rawValue
        } catch {
            Console.error("\(error)")
            return ExitStatus.internalError.rawValue
        }

        let engine: Engine
        do {
            engine = try Engine(options: options)
        } catch {
            Console.error(error.description)
            return error.exitStatus.rawValue
        }
        let trap = SignalTrap { engine.cancel() }
        let report = await ProbeSession.run(plan, engine: engine, interrupted: { trap.fired })
        ProbeCommand.keptUntilExit = report
        return deliver(report)
    }

    /// The run's report, kept until the process exits: freeing a large run's records one by one would
    /// only delay the exit.
    nonisolated(unsafe) private static var keptUntilExit: Report?

    /// Writes the report and the closing messages; returns the exit code.
    private func deliver(_ report: Report) -> Int32 {
        let color = reportPath == nil && Console.colorsStdout(noColor: noColor)
        let produce = { (emit: ([UInt8]) throws -> Void) throws in
            switch format {
            case .json: try JSONRenderer.render(report, compactAbove: ProbeCommand.prettyJSONLimit, emit: emit)
            case .text: try emit(Array(TextRenderer(color: color).render(report).utf8))
            }
        }
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
        let status = ExitStatus.forTasks(report.tasks, interrupted: report.interrupted)
        if report.interrupted {
            Console.error("interrupted: the report holds the \(report.tasks.count) tasks gathered so far")
        }
        // Indices, not elements: iterating the records would copy (and retain) each one.
        let failed = report.tasks.indices.filter {
            if let error = report.tasks[$0].error { error.errorClass != .cancelled } else { false }
        }
        if let first = failed.first, let error = report.tasks[first].error {
            let more = failed.count > 1 ? " (and \(failed.count - 1) more failed tasks)" : ""
            Console.error("\(report.tasks[first].url): \(error.errorClass.rawValue): \(error.message)\(more)")
        }
        if !quiet, let reportPath {
            Console.error("\(report.summary.tasks) tasks, \(report.summary.failed) failed; report written to \(reportPath)")
        }
        return status.rawValue
    }

    /// The engine options from the flags; bad values are usage errors.
    private func probeOptions() throws(UsageError) -> ProbeOptions {
        var o = ProbeOptions()
        guard repeatCount >= 1 else { throw UsageError("--repeat must be 1 or more, not \(repeatCount)") }
        guard concurrency >= 1 else { throw UsageError("--concurrency must be 1 or more, not \(concurrency)") }
        guard maxHostConnections >= 0 else { throw UsageError("--max-host-connections must be 0 (unlimited) or more") }
        guard maxConnections >= 0 else { throw UsageError("--max-connections must be 0 (unlimited) or more") }
        guard retries >= 0 else { throw UsageError("--retries must be 0 or more, not \(retries)") }
        guard maxRedirects >= 0 else { throw UsageError("--max-redirs must be 0 or more, not \(maxRedirects)") }
        let versions = [http11, http2, http2PriorKnowledge].filter { $0 }.count
        guard versions <= 1 else { throw UsageError("give only one of --http1.1, --http2, --http2-prior-knowledge") }
        o.concurrency = concurrency
        o.maxHostConnections = maxHostConnections > 0 ? maxHostConnections : nil
        o.maxConnections = maxConnections > 0 ? maxConnections : nil
        o.httpVersion = http11 ? .http1_1 : http2 ? .http2 : http2PriorKnowledge ? .http2PriorKnowledge : .auto
        o.reuseConnections = !noReuse
        o.multiplex = !noMultiplex
        o.connectTimeout = try duration(connectTimeout, "--connect-timeout")
        o.idleTimeout = try duration(idleTimeout, "--idle-timeout")
        o.totalTimeout = try duration(totalTimeout, "--timeout")
        o.retry.maxRetries = retries
        o.maxRedirects = maxRedirects
        o.proxy = proxy
        o.caFile = cacert
        o.insecure = insecure
        o.expectContinue = !noExpect100
        o.includeResponseHeaders = includeHeaders
        o.headers = try headers.map { line throws(UsageError) in
            guard let field = HeaderField.parse(line) else {
                throw UsageError("-H '\(Redactor.message(line))' is not a header; write \"Name: value\"")
            }
            return field
        }
        return o
    }

    private func duration(_ text: String?, _ flag: String) throws(UsageError) -> Int64? {
        guard let text else { return nil }
        guard let micros = DurationText.parseMicroseconds(text), micros > 0 else {
            throw UsageError("\(flag) '\(text)' is not a duration; write e.g. 500ms, 15s or 2m")
        }
        return micros
    }
}

/// A usage mistake found after parsing, with its one-line message.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
