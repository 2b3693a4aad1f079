import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe
import WirelensUpload
import WirelensStore

/// `wirelens upload FILE URL`: a segmented, parallel, resumable upload with a retry queue, reported
/// attempt by attempt.
struct UploadCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Upload a file in segments, several in flight, retrying failed ones, resumable.",
        discussion: """
            URL is the upload's base on a server with the Wirelens target's segment protocol: each segment is \
            PUT to URL/part/{index} with Content-Range, then POST URL/complete answers the assembled size and \
            SHA-256, which must equal the file's. For other servers give --part-url (then there is no complete \
            call and no SHA-256 check unless --complete-url is given too).

            With --part-url, parts carry Content-Range only when the template has no {offset}.

            A failed segment (transport error, 408, 429 or a 5xx but 501) goes to the tail of the queue and is sent again, \
            up to --retry times; any other 4xx stops the upload at once. Accepted segments are journalled \
            (SQLite, under $XDG_STATE_HOME/wirelens/ or ~/.local/state/wirelens/), keyed by the file's identity \
            and URL: after a crash, the same command with --resume sends only the missing segments, at the \
            journal's segment size. --resume without a journal entry starts from the first segment (with a note).

            Presets (explicit flags override them): \
            \(UploadPreset.all.map { "\($0.name): \($0.about)" }.joined(separator: "; ")).
            """)

    @Argument(help: "The file to upload.")
    var file: String

    @Argument(help: "The upload's base URL, e.g. http://127.0.0.1:8080/upload/ID.")
    var url: String

    @Option(name: .customLong("segment-size"),
            help: "Segment size (e.g. 512KiB, 8MiB), or auto: sized from the throughput measured (default 1MiB).")
    var segmentSize: String?

    @Option(help: "Segments in flight at once (default 4).")
    var parallel: Int?

    @OptionGroup(title: "Retries")
    var retry: RetryFlags

    @Option(help: "Settings of a known client: \(UploadPreset.all.map(\.name).joined(separator: ", ")).")
    var preset: String?

    @Option(name: .customLong("part-url"),
            help: ArgumentHelp("Part URL template with {index}, {offset}, {length} (no complete call unless --complete-url).",
                               discussion: "Parts carry Content-Range only when the template has no {offset}."))
    var partURL: String?

    @Option(name: .customLong("complete-url"), help: "POSTed (empty body) once every segment was accepted.")
    var completeURL: String?

    @Flag(help: "Continue the journalled upload of this file to this URL: send only the missing segments.")
    var resume = false

    @Option(help: "The journal database (default under $XDG_STATE_HOME/wirelens/).")
    var journal: String?

    @Flag(name: .customLong("no-journal"), help: "Keep no journal (the upload cannot be resumed).")
    var noJournal = false

    @OptionGroup(title: "Connections, protocol, timeouts and TLS")
    var protocols: ProtocolFlags

    @OptionGroup(title: "Connections, protocol, timeouts and TLS")
    var transfer: TransferFlags

    @OptionGroup(title: "Report")
    var report: ReportFlags<ReportFormat>

    @OptionGroup(title: "Report")
    var writeOut: WriteOutFlags

    /// Defaults when neither a flag nor the preset sets a value.
    static let defaultParallel = 4
    static let defaultRetries = 3
    static let defaultSegmentSize: Int64 = 1 << 20

    /// The settings from the flags and the preset, checked (no file is read).
    private func checked() throws(UsageError) -> (options: ProbeOptions, preset: UploadPreset?, parallel: Int,
                                                  retries: Int, sizing: SegmentSizer.Mode) {
        let preset = try self.presetValue()
        let parallel = parallel ?? preset?.parallel ?? Self.defaultParallel
        guard parallel >= 1 else { throw UsageError("--parallel must be 1 or more, not \(parallel)") }
        let retries = try retry.count() ?? preset?.retries ?? Self.defaultRetries

        let sizing = try self.sizing(preset: preset)
        if resume, noJournal { throw UsageError("--resume needs the journal; drop --no-journal") }
        var options = try transfer.probeOptions(concurrency: parallel, retries: 0, protocols: protocols)
        if options.maxHostConnections == nil { options.maxHostConnections = preset?.maxHostConnections ?? parallel }
        if options.idleTimeout == nil { options.idleTimeout = preset?.idleTimeout }
        return (options, preset, parallel, retries, sizing)
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
        try UsageError.checkURL(url)
        if let partURL {
            guard partURL.contains("{index}") || partURL.contains("{offset}") else {
                throw UsageError("--part-url '\(Redactor.url(partURL))' has neither {index} nor {offset}: every segment would go to the same URL")
            }
            try UsageError.checkURL(Segment(index: 0, offset: 0, length: 1).url(fromTemplate: partURL))
        }
        if let completeURL { try UsageError.checkURL(completeURL) }
        try writeOut.check(report: report.format, reportPath: report.reportPath)
    }

    /// Runs the upload and writes its report.
    func run() async throws {
        let (options, preset, parallel, retries, sizing) = try checked()
        try report.check()
        let printer = try writeOut.parsed().map(WriteOutPrinter.init)
        let identity = try FileIdentity.read(file)
        guard identity.size > 0 else { throw ProbeError.localFile(path: file, reason: "the file is empty: nothing to upload") }
        var plan: UploadPlan
        if let partURL {
            plan = UploadPlan(filePath: file, fileSize: identity.size, url: url, partTemplate: partURL,
                              completeURL: completeURL, sizing: sizing, parallel: parallel, maxRetries: retries,
                              preset: preset?.name)
        } else {
            var p = UploadPlan(filePath: file, fileSize: identity.size, baseURL: url, sizing: sizing,
                               parallel: parallel, maxRetries: retries, preset: preset?.name)
            if let completeURL { p.completeURL = completeURL }
            plan = p
        }
        plan.retryMaxTime = try retry.maxTime()
        let bytes = TransferProgress()
        let engine = try Engine(options: options, progress: bytes)

        var journalStore: UploadJournal?
        if !noJournal {
            let path = journal ?? UploadJournal.defaultPath()
            do {
                journalStore = try UploadJournal(path: path)
            } catch {
                if resume || journal != nil {
                    throw CommandFailure(.localFile, "\(error.description); give a writable --journal PATH")
                }
                if !report.quiet { Console.error("\(error.description); uploading without a journal (no --resume later)") }
            }
        }
        let counts = UploadProgress()
        let key = UploadJournalKey(file: identity, url: plan.partTemplate + " " + (plan.completeURL ?? ""))
        let uploader = SegmentUploader(plan: plan, engine: engine, journal: journalStore,
                                       journalKey: journalStore == nil ? nil : key, resume: resume, progress: counts)
        let trap = SignalTrap { engine.cancel() }
        let total = plan.fileSize
        let ticker = report.quiet ? nil : ProgressTicker { elapsed in
            // Acknowledged by the server, not merely handed to libcurl or the kernel.
            let moved = counts.skippedBytes + max(0, bytes.bytesAcknowledged - counts.wastedBytes)
            return ProgressSnapshot(elapsedMicros: elapsed, bytes: min(total, moved), totalBytes: total,
                                    segments: .init(done: counts.done, inFlight: counts.inFlight, failed: counts.failed))
        }
        let (result, outcome) = await UploadSession.run(uploader, interrupted: { trap.fired })
        await ticker?.stop()
        if !report.quiet { outcome.notes.forEach { Console.error($0) } }
        if let failure = outcome.section.failure, outcome.ending != .completed, !trap.fired {
            Console.error("upload failed: \(failure)")
        }
        // -w: a line per request (segment, completion), in task order.
        if let printer { result.tasks.forEach { printer.print($0) } }
        try ErrorExit.end(report.deliver(result, outcome: trap.fired ? .interrupted : ErrorExit.status(of: outcome.ending),
                                         writingOut: printer != nil))
    }

    /// The preset asked for, or nil; an unknown name is a usage error listing the known ones.
    private func presetValue() throws(UsageError) -> UploadPreset? {
        guard let preset else { return nil }
        guard let value = UploadPreset.named(preset) else {
            throw UsageError("--preset '\(preset)' is not known; give one of \(UploadPreset.all.map(\.name).joined(separator: ", "))")
        }
        return value
    }

    /// The segment sizing from --segment-size, the preset or the default.
    private func sizing(preset: UploadPreset?) throws(UsageError) -> SegmentSizer.Mode {
        guard let text = segmentSize else { return .fixed(preset?.segmentSize ?? Self.defaultSegmentSize) }
        if text.lowercased() == "auto" { return .auto }
        guard let bytes = ByteSize.parse(text) else {
            throw UsageError("--segment-size '\(text)' is not a size; write e.g. 512KiB, 8MiB or auto")
        }
        guard bytes >= 1 else { throw UsageError("--segment-size must be at least 1 byte (or auto), not \(text)") }
        return .fixed(bytes)
    }
}
