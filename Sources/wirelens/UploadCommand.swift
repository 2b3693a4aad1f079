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

            s3://BUCKET/KEY with --endpoint-url URL uploads to an S3-compatible store (path-style, or \
            virtual-hosted with --addressing-style virtual; signed with AWS SigV4: -u KEY:SECRET or aws-cli's \
            variables): a file under 8 MiB as one PutObject, else \
            CreateMultipartUpload, the parts (--segment-size, default 8 MiB, at least 5 MiB; --parallel, \
            --retry) with Content-MD5, then CompleteMultipartUpload; the object's ETag is checked against the \
            parts' MD5s. An upload that does not complete is aborted unless --keep-parts. The journal keeps the \
            upload id and part size (never the credentials) and each accepted part: after a crash, the same \
            command with --resume asks ListParts and sends only the parts missing or whose ETag is not the MD5 \
            of the file's bytes, then completes with every part's ETag. A new multipart upload starts, with a \
            note, when the server no longer knows the upload id (NoSuchUpload) or the file changed since (its \
            journalled upload is then aborted).

            Presets (explicit flags override them): \
            \(UploadPreset.all.map { "\($0.name): \($0.about)" }.joined(separator: "; ")).
            """)

    @Argument(help: "The file to upload.")
    var file: String

    @Argument(help: "The upload's base URL, e.g. http://127.0.0.1:8080/upload/ID, or s3://BUCKET/KEY with --endpoint-url.")
    var url: String

    @Option(name: .customLong("endpoint-url"),
            help: "For s3://BUCKET/KEY: the S3-compatible endpoint, e.g. http://127.0.0.1:9000 (path-style), as aws-cli's.")
    var endpointURL: String?

    @Option(name: .customLong("addressing-style"),
            help: ArgumentHelp("For s3://: path (ENDPOINT/BUCKET/KEY, the default) or virtual (the bucket in the host: "
                               + "BUCKET.HOST/KEY, as OSS needs), aws-cli's s3 addressing_style.",
                               valueName: "path|virtual"))
    var addressingStyle: String?

    @Flag(name: .customLong("keep-parts"),
          help: "For s3://: leave the parts on the server when the upload does not complete (no AbortMultipartUpload).")
    var keepParts = false

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
    var detail: DetailFlags

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
        var options = try transfer.probeOptions(concurrency: parallel, retries: 0, protocols: protocols,
                                                signsForS3: isS3)
        if options.maxHostConnections == nil { options.maxHostConnections = preset?.maxHostConnections ?? parallel }
        if options.idleTimeout == nil { options.idleTimeout = preset?.idleTimeout }
        return (options, preset, parallel, retries, sizing)
    }

    /// True for an `s3://` destination.
    private var isS3: Bool { url.hasPrefix("s3://") }

    /// The S3 object and endpoint, checked, its addressing, and the part size (nil: the default) with, when a preset's
    /// parts were below S3's minimum and raised to it, the preset's own size; nil for another destination.
    private func s3Destination() throws(UsageError)
        -> (address: S3ObjectAddress, endpoint: String, virtualHosted: Bool, partSize: Int64?, raisedFrom: Int64?)? {
        guard isS3 else {
            if endpointURL != nil { throw UsageError("--endpoint-url is for an s3://BUCKET/KEY destination, not \(Redactor.url(url))") }
            if keepParts { throw UsageError("--keep-parts is for an s3://BUCKET/KEY destination, not \(Redactor.url(url))") }
            if addressingStyle != nil {
                throw UsageError("--addressing-style is for an s3://BUCKET/KEY destination, not \(Redactor.url(url))")
            }
            return nil
        }
        let address: S3ObjectAddress
        do { address = try S3ObjectAddress(url) } catch { throw UsageError(error.description) }
        guard let endpointURL else {
            throw UsageError("\(url) needs --endpoint-url URL: the S3-compatible endpoint, e.g. http://127.0.0.1:9000")
        }
        try UsageError.checkURL(endpointURL)
        let virtualHosted = try self.virtualHosted(endpoint: endpointURL)
        for (given, flag) in [(partURL != nil, "--part-url"), (completeURL != nil, "--complete-url")] where given {
            throw UsageError("\(flag) is not for an s3:// destination: S3's own protocol sends the parts")
        }
        var partSize: Int64?
        var raisedFrom: Int64?
        if let segmentSize {
            guard case .fixed(let bytes) = try sizing(preset: nil) else {
                throw UsageError("--segment-size \(segmentSize) is not for s3://: S3's parts are of one size; give e.g. 8MiB")
            }
            partSize = bytes
        } else if let size = try presetValue()?.segmentSize {
            // A client's own parts (the OSS SDK's 256 KiB) S3 would refuse: S3's smallest instead.
            partSize = max(size, S3PartPlan.minimumPartSize)
            if size < S3PartPlan.minimumPartSize { raisedFrom = size }
        }
        if let partSize, partSize < S3PartPlan.minimumPartSize || partSize > S3PartPlan.maximumPartSize {
            throw UsageError((partSize < S3PartPlan.minimumPartSize ? S3PartPlanError.partTooSmall(partSize)
                              : S3PartPlanError.partTooLarge(partSize)).description)
        }
        return (address, endpointURL, virtualHosted, partSize, raisedFrom)
    }

    /// True for `--addressing-style virtual`, which needs a host name in the endpoint to put the bucket in front of.
    private func virtualHosted(endpoint: String) throws(UsageError) -> Bool {
        switch addressingStyle?.lowercased() {
        case nil, "path":
            return false
        case "virtual":
            let host = URLComponents(string: endpoint)?.host ?? ""
            if host.isEmpty || host.contains(":") || host.split(separator: ".").allSatisfy({ Int($0) != nil }) {
                throw UsageError("--addressing-style virtual puts the bucket in front of --endpoint-url's host name, "
                                 + "and '\(Redactor.url(endpoint))' has none: give a host name (with --resolve for a "
                                 + "local server) or --addressing-style path")
            }
            return true
        default:
            throw UsageError("--addressing-style '\(addressingStyle ?? "")' is not known: give path or virtual")
        }
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
        if try s3Destination() != nil {
            try writeOut.check(report: report.format, reportPath: report.reportPath)
            return
        }
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
        var (options, preset, parallel, retries, sizing) = try checked()
        try TransferFlags.prepareCookies(options.cookies)
        try report.check()
        let printer = try writeOut.parsed().map(WriteOutPrinter.init)
        let identity = try FileIdentity.read(file)
        guard identity.size > 0 else { throw ProbeError.localFile(path: file, reason: "the file is empty: nothing to upload") }
        if let s3 = try s3Destination() {
            let parts: S3PartPlan
            do {
                parts = try S3PartPlan(fileSize: identity.size, partSize: s3.partSize,
                                       threshold: preset?.multipartThreshold ?? S3PartPlan.defaultThreshold)
            } catch {
                throw UsageError(error.description)
            }
            var notes: [String] = []
            if let raised = s3.raisedFrom, let preset, !parts.single {
                notes.append("--preset \(preset.name): its \(ByteSize.format(raised)) parts are below S3's 5 MiB part "
                             + "minimum: sending \(ByteSize.format(parts.partSize)) parts, \(parallel) in flight, "
                             + "\(retries) retries (give --segment-size to choose)")
            }
            // The parts' ETags come in their answers' headers.
            options.includeResponseHeaders = true
            let bytes = TransferProgress()
            let engine = try Engine(options: options, progress: bytes)
            let counts = UploadProgress()
            let upload = S3Upload(address: s3.address, endpoint: s3.endpoint, virtualHosted: s3.virtualHosted,
                                  filePath: file, parts: parts,
                                  parallel: parallel, maxRetries: retries, retryMaxTime: try retry.maxTime(),
                                  keepsParts: keepParts, preset: preset?.name, engine: engine, progress: counts,
                                  journal: try openJournal(), fileIdentity: identity, resume: resume, notes: notes)
            try await finish(engine: engine, bytes: bytes, counts: counts, total: identity.size, printer: printer) {
                await UploadSession.run(upload, interrupted: $0)
            }
            return
        }
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
        let journalStore = try openJournal()
        let counts = UploadProgress()
        let key = UploadJournalKey(file: identity, url: plan.partTemplate + " " + (plan.completeURL ?? ""))
        let uploader = SegmentUploader(plan: plan, engine: engine, journal: journalStore,
                                       journalKey: journalStore == nil ? nil : key, resume: resume, progress: counts)
        try await finish(engine: engine, bytes: bytes, counts: counts, total: plan.fileSize, printer: printer) {
            await UploadSession.run(uploader, interrupted: $0)
        }
    }

    /// The journal (--journal or the default), nil with --no-journal; one that cannot be opened is an error with
    /// --resume or --journal, else a line on stderr and an upload that cannot be resumed.
    private func openJournal() throws(CommandFailure) -> UploadJournal? {
        guard !noJournal else { return nil }
        do {
            return try UploadJournal(path: journal ?? UploadJournal.defaultPath())
        } catch {
            if resume || journal != nil {
                throw CommandFailure(.localFile, "\(error.description); give a writable --journal PATH")
            }
            if !report.quiet { Console.error("\(error.description); uploading without a journal (no --resume later)") }
            return nil
        }
    }

    /// Runs an upload with the signal trap and the progress line, prints its notes, failure and -w lines, and
    /// writes its report.
    private func finish(engine: Engine, bytes: TransferProgress, counts: UploadProgress, total: Int64,
                        printer: WriteOutPrinter?,
                        _ upload: (@escaping @Sendable () -> Bool) async -> (Report, SegmentUploader.Outcome)) async throws {
        let trap = SignalTrap { engine.cancel() }
        let ticker = report.quiet ? nil : ProgressTicker { elapsed in
            // Acknowledged by the server, not merely handed to libcurl or the kernel.
            let moved = counts.skippedBytes + max(0, bytes.bytesAcknowledged - counts.wastedBytes)
            return ProgressSnapshot(elapsedMicros: elapsed, bytes: min(total, moved), totalBytes: total,
                                    segments: .init(done: counts.done, inFlight: counts.inFlight, failed: counts.failed))
        }
        var (result, outcome) = await upload { trap.fired }
        result.detail = detail.level
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
