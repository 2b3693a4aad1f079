import Foundation
import WirelensCore
import WirelensProbe
import WirelensDigest
import WirelensWire

/// Runs a segmented upload on an engine: segments read at their offsets, `parallel` in flight, failed ones
/// queued at the tail and retried, each accepted one journalled, then the complete call and the SHA-256 check.
///
/// Every attempt is its own engine task (and report task); the engine's own retries should be off (the queue
/// retries). All bookkeeping happens on the task that calls `run()`, one finished attempt at a time.
package struct SegmentUploader: Sendable {
    package let plan: UploadPlan
    package let engine: Engine
    /// Where accepted segments are recorded, with the entry's key; nil for no journal.
    package let journal: (any UploadJournaling)?
    package let journalKey: UploadJournalKey?
    /// Continue the journal's entry instead of replacing it.
    package let resume: Bool
    package let progress: UploadProgress

    package init(plan: UploadPlan, engine: Engine, journal: (any UploadJournaling)?, journalKey: UploadJournalKey?,
                resume: Bool, progress: UploadProgress = UploadProgress()) {
        self.plan = plan
        self.engine = engine
        self.journal = journal
        self.journalKey = journalKey
        self.resume = resume
        self.progress = progress
    }

    /// What an upload run gave.
    package struct Outcome: Sendable {
        /// Every attempt's task and the complete call's, in task order.
        package var tasks: [TaskRecord]
        package var section: UploadSection
        /// Completed, interrupted, or why the upload did not complete.
        package var ending: UploadEnding
        /// Things the user should know that are not failures (no journal entry to resume, journal not writable).
        package var notes: [String]
        /// With `UploadPlan.s3Parts`: every accepted part's number, the ETag its answer carried and its MD5.
        package var sentParts: [SentPart] = []
    }

    /// An S3 part the server accepted.
    package struct SentPart: Sendable, Equatable {
        package var number: Int
        package var etag: S3ETag
        package var md5: [UInt8]

        package init(number: Int, etag: S3ETag, md5: [UInt8]) {
            self.number = number
            self.etag = etag
            self.md5 = md5
        }
    }

    /// One finished attempt, handed from a child task to the bookkeeping loop.
    private struct AttemptResult: Sendable {
        var segment: Segment
        var attempt: Int
        var record: TaskRecord?
        var body: [UInt8]?
        /// The part's MD5, sent as its Content-MD5 (`UploadPlan.s3Parts`).
        var md5: [UInt8]?
    }

    /// Runs the upload to its end: completed and verified, failed, or stopped by `engine.cancel()`. A give-up ends
    /// the attempts in flight and those waiting out their backoff (`stop`), and leaves the engine taking work, so that
    /// an S3 upload can still be aborted.
    package func run() async -> Outcome {
        let started = MonotonicClock.wallMicros()
        let path = plan.filePath
        let fileDigest = Task.detached { () -> String? in try? SHA256Digest.hex(ofFile: path) }
        var section = UploadSection(file: plan.filePath, fileBytes: plan.fileSize, url: plan.url,
                                    segmentMode: plan.sizing == .auto ? "auto" : "fixed", parallel: plan.parallel,
                                    maxRetries: plan.maxRetries)
        section.preset = plan.preset
        let start = openJournal()
        var notes = start.notes
        let sizer = start.sizer
        var journalUsable = start.journalUsable
        if start.resumed {
            section.resumed = true
            section.segmentMode = "fixed"
        }
        let done = start.done
        let aligned = start.aligned

        let queue = SegmentQueue(fileSize: plan.fileSize, done: done, alignedSize: aligned)
        let skipped = Array(queue.succeeded.values)
        section.resumedSegmentsSkipped = skipped.count
        section.resumedBytesSkipped = skipped.reduce(0) { $0 + $1.length }
        progress.resumed(segments: skipped.count, bytes: section.resumedBytesSkipped)

        var schedule = SegmentSchedule(plan: plan, queue: queue, sizer: sizer, section: section)
        var records: [TaskRecord] = []
        var sentParts: [SentPart] = []

        await withTaskGroup(of: AttemptResult.self) { group in
            while true {
                // Hand out segments while the schedule has room.
                while let (segment, attempt) = schedule.next(elapsedMicros: MonotonicClock.wallMicros() - started) {
                    progress.started()
                    group.addTask { await self.send(segment, attempt: attempt) }
                }
                guard let result = await group.next() else { break }
                let segment = result.segment
                guard let record = result.record else {
                    // Dropped before it started: the engine was cancelled.
                    schedule.dropped(segment)
                    progress.failed(sentBytes: 0)
                    continue
                }
                records.append(record)
                let body = record.transactions.last?.requestBodyBytes ?? 0
                var verdict = SegmentVerdict.judge(record, body: result.body, segment: segment, plan: plan)
                if plan.s3Parts, verdict == .accepted {
                    if let etag = S3Upload.etag(of: record), let md5 = result.md5 {
                        sentParts.append(SentPart(number: segment.index + 1, etag: etag, md5: md5))
                    } else {
                        verdict = .fatal("\(record.url) accepted part \(segment.index + 1) without an ETag, or its bytes "
                                         + "could not be read for their Content-MD5")
                    }
                }
                if verdict == .accepted { progress.succeeded() } else { progress.failed(sentBytes: body) }
                switch schedule.finished(segment, attempt: result.attempt, verdict: verdict, record: record,
                                         bodyBytes: body, elapsedMicros: MonotonicClock.wallMicros() - started) {
                case .none:
                    break
                case .journal(let accepted):
                    guard journalUsable, let journal, let key = journalKey else { break }
                    do {
                        try journal.record(key, segment: accepted)
                    } catch {
                        notes.append("\(error); continuing without a journal (this upload cannot be resumed)")
                        journalUsable = false
                    }
                case .cancelEngine:
                    stop(&group)
                }
            }
        }
        schedule.close()

        // The end: complete, then compare the server's SHA-256 with the file's.
        let localDigest = await fileDigest.value
        schedule.section.fileSHA256 = localDigest
        if schedule.mayComplete {
            if let completeURL = plan.completeURL {
                let (tried, answer) = await completeRetrying(completeURL)
                records += tried
                switch answer {
                case .success(let size, let digest):
                    schedule.assembled(size: size, sha256: digest, fileSHA256: localDigest)
                case .failure(let message, let ending, _):
                    schedule.completeFailed(message, ending: ending)
                case .none:
                    schedule.completeInterrupted()
                }
            }
            // An S3 upload's entry (its UploadId) goes once CompleteMultipartUpload answered (`S3Upload`).
            if schedule.mayComplete, !plan.s3Parts, journalUsable, let journal, let key = journalKey {
                try? journal.remove(key)
            }
        }
        let ending = schedule.end()
        section = schedule.section
        let ended = MonotonicClock.wallMicros()
        section.wallMs = Format.millis(fromMicros: ended - started)
        if ended > started {
            section.effectiveBytesPerSecond = Double(schedule.sentBytes) * 1e6 / Double(ended - started)
        }
        records.sort { $0.index < $1.index }
        return Outcome(tasks: records, section: section, ending: ending, notes: notes, sentParts: sentParts)
    }

    /// Where a run starts from: the journal's entry (resumed) or a fresh one.
    private struct Start {
        var sizer: SegmentSizer
        var done: [Segment] = []
        /// The size by which new segments are numbered (`offset / size`), when segments are of one size.
        var aligned: Int64?
        var resumed = false
        var journalUsable: Bool
        var notes: [String] = []
    }

    /// Resumes the journal's entry (with `resume`), or starts a new entry replacing any under the same key.
    /// A resumed upload is fixed-size, at the journal's segment size.
    private func openJournal() -> Start {
        var start = Start(sizer: SegmentSizer(mode: plan.sizing), journalUsable: journal != nil && journalKey != nil)
        if case .fixed(let size) = plan.sizing { start.aligned = size }
        guard let journal, let key = journalKey else { return start }
        do {
            if resume, let entry = try journal.entry(for: key) {
                let size = max(entry.segmentSize, entry.done.map(\.length).max() ?? 0)
                start.done = entry.done
                start.sizer = SegmentSizer(mode: .fixed(size))
                start.resumed = true
                // Numbered by offset only when the journal's segments were (a fixed-size run).
                start.aligned = entry.done.allSatisfy { $0.offset % size == 0 && Int64($0.index) == $0.offset / size }
                    ? size : nil
            } else {
                if resume {
                    start.notes.append("no journal entry for '\(plan.filePath)' and \(Redactor.url(plan.url)); "
                                       + "starting from the first segment")
                }
                try journal.begin(key, segmentSize: start.sizer.nextSize)
            }
        } catch {
            start.notes.append("\(error); continuing without a journal (this upload cannot be resumed)")
            start.journalUsable = false
        }
        return start
    }

    /// Stops the upload's attempts after a give-up: those in flight end as cancelled (`Engine.cancelRuns()`, the engine
    /// still taking the requests that follow, such as an S3 abort), those waiting out their backoff are not sent.
    private func stop(_ group: inout TaskGroup<AttemptResult>) {
        group.cancelAll()
        engine.cancelRuns()
    }


    /// The most of an answer's body kept: the protocol's answers are a few hundred bytes of JSON, and one cut here
    /// does not decode, which the verdicts treat as an answer without the protocol's JSON.
    static let answerLimit = 64 * 1024

    /// The wait before attempt `attempt` (2 for the first retry) of a segment: exponential backoff with
    /// jitter (RetryPolicy's), from 250 ms up to 4 s, so a server shedding load is not hammered.
    static func backoffMicros(attempt: Int, unit: Double) -> Int64 {
        guard attempt > 1 else { return 0 }
        let policy = RetryPolicy(maxRetries: .max, baseDelay: 250_000, maxDelay: 4_000_000)
        return policy.backoff(retry: attempt - 1, unit: unit)
    }

    /// Sends one attempt of a segment (after its backoff, for a retry) and returns what came back.
    private func send(_ segment: Segment, attempt: Int) async -> AttemptResult {
        let wait = Self.backoffMicros(attempt: attempt, unit: Double.random(in: 0..<1))
        if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait) * 1000) }
        // The upload gave up meanwhile (`stop`): not sent, as a task the engine dropped.
        if Task.isCancelled { return AttemptResult(segment: segment, attempt: attempt, record: nil) }
        var headers: [HeaderField] = []
        var md5: [UInt8]?
        if plan.s3Parts {
            // Read once for the MD5 S3 checks the part against, then again as the body, as aws-cli does.
            md5 = try? MD5Digest.bytes(ofFile: plan.filePath, offset: segment.offset, length: segment.length)
            if let md5 { headers.append(HeaderField(name: "Content-MD5", value: S3ETag.contentMD5(md5))) }
        } else if plan.sendsContentRange {
            headers.append(HeaderField(name: "Content-Range", value: segment.contentRange(total: plan.fileSize)))
        }
        // The segment protocol's answer and S3's error documents are read from memory; other answers are not kept.
        let spec = TaskSpec(url: segment.url(fromTemplate: plan.partTemplate), method: "PUT",
                            body: .fileRange(path: plan.filePath, offset: segment.offset, length: segment.length),
                            response: plan.segmentProtocol || plan.s3Parts ? .memory(limit: Self.answerLimit) : .discard,
                            headers: headers)
        let record = await engine.run([spec]).first
        let body = record?.responseBody?.bytes
        return AttemptResult(segment: segment, attempt: attempt, record: record, body: body, md5: md5)
    }

    /// What the complete call gave: the assembled size and SHA-256, a failure (transient or not), or nil when cancelled.
    enum CompleteOutcome {
        case success(size: Int64, sha256: String)
        case failure(String, UploadEnding, transient: Bool)
    }

    /// The complete call, tried again (after a backoff, up to `--retry` times) while it fails in passing: a transport
    /// error or a retryable status. Returns every attempt's record and the last answer.
    private func completeRetrying(_ url: String) async -> ([TaskRecord], CompleteOutcome?) {
        var records: [TaskRecord] = []
        var (record, answer) = await complete(url)
        var attempt = 1
        while attempt <= plan.maxRetries, case .failure(_, _, true) = answer {
            if let record { records.append(record) }
            attempt += 1
            let wait = Self.backoffMicros(attempt: attempt, unit: Double.random(in: 0..<1))
            try? await Task.sleep(nanoseconds: UInt64(wait) * 1000)
            (record, answer) = await complete(url)
        }
        if let record { records.append(record) }
        return (records, answer)
    }

    /// POSTs the complete call and reads its answer.
    private func complete(_ url: String) async -> (TaskRecord?, CompleteOutcome?) {
        let record = await engine.run([TaskSpec(url: url, method: "POST", response: .memory(limit: Self.answerLimit))]).first
        let body = record?.responseBody?.bytes
        guard let record else { return (nil, nil) }
        if let error = record.error, error.errorClass != .http {
            if error.errorClass == .cancelled { return (record, nil) }
            return (record, .failure("\(record.url): \(error.errorClass.rawValue): \(error.message)",
                                     .transportFailed(error.errorClass), transient: true))
        }
        let status = record.statusCode ?? 0
        if status == 409 {
            let missing = body.flatMap(MissingRangesAnswer.decode)?.missing
                .map { "\($0.first ?? 0)-\($0.last ?? 0)" }.joined(separator: ", ") ?? "unknown"
            return (record, .failure("\(record.url) answered 409: the server is missing byte ranges \(missing) "
                                     + "(parts lost on the server?); upload again without --resume", .refused, transient: false))
        }
        guard (200..<300).contains(status) else {
            let hint = [404, 405, 501].contains(status) ? ": the server has no complete call there; give --complete-url, "
                + "or --part-url without it to skip the check" : ""
            let transient = RetryPolicy.isRetryable(status: status)
            return (record, .failure("\(record.url) answered HTTP \(status) to the complete call\(hint)", .refused,
                                     transient: transient))
        }
        guard let answer = body.flatMap(CompleteAnswer.decode) else {
            return (record, .failure("\(record.url) answered HTTP \(status) without the size and sha256 of the "
                                     + "assembled file", .unreadableAnswer, transient: false))
        }
        return (record, .success(size: answer.size, sha256: answer.sha256.lowercased()))
    }
}
