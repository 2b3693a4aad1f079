import Foundation
import WirelensCore
import WirelensDigest
import WirelensProbe

/// An upload to an S3-compatible store (path-style or virtual-hosted, signed by the engine's options): one PutObject
/// for a file under the multipart threshold, else CreateMultipartUpload, the parts by `SegmentUploader`
/// (`--parallel`, `--retry`, the retry queue, Content-MD5 on each), then CompleteMultipartUpload with their ETags; a
/// give-up or a stop aborts the upload (AbortMultipartUpload) unless `keepsParts`. The object's ETag is checked against the one S3 computes from
/// the parts' MD5s. An upload the server stops knowing mid-run (NoSuchUpload to a part or to Complete) ends the run at
/// once, with nothing left to abort or resume.
///
/// With a journal, the multipart upload's entry (keyed by the file's identity and the object's URL) keeps its
/// UploadId and part size, never a credential, and each accepted part; `resume` continues it (`S3Upload+Resume`:
/// ListParts, then only the parts missing or whose ETag is not the MD5 of the file's bytes). The entry goes once the
/// object completed or the upload was aborted.
package struct S3Upload: Sendable {
    package let address: S3ObjectAddress
    /// The object's URL on the endpoint (path-style unless virtual-hosted).
    package let objectURL: String
    package let filePath: String
    package let parts: S3PartPlan
    package let parallel: Int
    package let maxRetries: Int
    package let retryMaxTime: Int64?
    /// Leave the parts on the server when the upload does not complete (no AbortMultipartUpload).
    package let keepsParts: Bool
    package let preset: String?
    package let engine: Engine
    package let progress: UploadProgress
    /// Where a multipart upload is journalled for `--resume`; nil: it cannot be resumed.
    package let journal: (any UploadJournaling)?
    /// The file's identity, which keys the journal entry with `objectURL`.
    package let fileIdentity: FileIdentity?
    /// Continue the journalled upload of this file to this object instead of starting a new one.
    package let resume: Bool
    /// The most parts a ListParts page is asked for (S3's own most, 1000, unless a test asks for fewer).
    package let listPageSize: Int
    /// The caller's notes for the report (and stderr), before the run's own.
    package let notes: [String]

    package init(address: S3ObjectAddress, endpoint: String, virtualHosted: Bool = false, filePath: String,
                parts: S3PartPlan, parallel: Int, maxRetries: Int, retryMaxTime: Int64?, keepsParts: Bool,
                preset: String?, engine: Engine, progress: UploadProgress = UploadProgress(),
                journal: (any UploadJournaling)? = nil, fileIdentity: FileIdentity? = nil, resume: Bool = false,
                listPageSize: Int = 1000, notes: [String] = []) {
        self.address = address
        objectURL = address.url(endpoint: endpoint, virtualHosted: virtualHosted)
        self.filePath = filePath
        self.parts = parts
        self.parallel = parallel
        self.maxRetries = maxRetries
        self.retryMaxTime = retryMaxTime
        self.keepsParts = keepsParts
        self.preset = preset
        self.engine = engine
        self.progress = progress
        self.journal = journal
        self.fileIdentity = fileIdentity
        self.resume = resume
        self.listPageSize = max(1, listPageSize)
        self.notes = notes
    }

    /// The journal entry's key: the file's identity and the object's URL; nil without a journal.
    var journalKey: UploadJournalKey? {
        journal == nil ? nil : fileIdentity.map { UploadJournalKey(file: $0, url: objectURL) }
    }

    /// The most of an answer's body kept: S3's XML answers are small (a ListParts page is the largest).
    static let answerLimit = 256 * 1024

    /// Runs the upload to its end and returns every request's task, the `upload` section and the ending.
    package func run() async -> SegmentUploader.Outcome {
        parts.single ? await putObject() : await multipart()
    }

    /// One PutObject with the file's Content-MD5, retried as a part is.
    private func putObject() async -> SegmentUploader.Outcome {
        let started = MonotonicClock.wallMicros()
        var section = UploadSection(file: filePath, fileBytes: parts.fileSize, url: objectURL, segmentMode: "fixed",
                                    parallel: 1, maxRetries: maxRetries)
        section.preset = preset
        section.segmentsTotal = 1
        var records: [TaskRecord] = []
        guard let md5 = try? MD5Digest.bytes(ofFile: filePath) else {
            return finish(section, records, started, failure: ("'\(filePath)' could not be read for its MD5",
                                                               .transportFailed(.file)))
        }
        let expected = S3ETag(singleMD5: md5)
        var s3 = UploadSection.S3(bucket: address.bucket, key: address.key, parts: 1, expectedETag: expected.value)
        var failure: (String, UploadEnding)?
        for attempt in 1...(maxRetries + 1) {
            if attempt > 1 {
                let wait = SegmentUploader.backoffMicros(attempt: attempt, unit: Double.random(in: 0..<1))
                try? await Task.sleep(nanoseconds: UInt64(wait) * 1000)
            }
            progress.started()
            let spec = TaskSpec(url: objectURL, method: "PUT", body: .file(path: filePath, size: parts.fileSize),
                                response: .memory(limit: Self.answerLimit),
                                headers: [HeaderField(name: "Content-MD5", value: S3ETag.contentMD5(md5))])
            guard let record = await engine.run([spec]).first else { return finish(section, records, started, failure: nil) }
            records.append(record)
            let step = Self.judge(record, "PutObject of \(address)")
            section.attempts.append(.init(task: record.index, segment: 0, offset: 0, length: parts.fileSize,
                                          attempt: attempt, succeeded: step.succeeded))
            if step.succeeded {
                progress.succeeded()
                section.segmentsSent = 1
                s3.objectETag = Self.etag(of: record).map(\.value)
                s3.etagMatches = s3.objectETag == expected.value
                failure = s3.etagMatches == true ? nil
                    : ("PutObject of \(address) answered ETag \(s3.objectETag ?? "none"), not the file's MD5 \(expected)",
                       .verificationFailed)
                break
            }
            progress.failed(sentBytes: record.transactions.last?.requestBodyBytes ?? 0)
            section.failedAttempts += 1
            failure = (step.message, step.ending)
            if !step.retryable || record.error?.errorClass == .cancelled { break }
        }
        section.verified = s3.etagMatches == true
        section.s3 = s3
        return finish(section, records, started, failure: failure)
    }

    /// Create (or, resuming, ListParts), the parts, Complete; Abort when it does not complete.
    private func multipart() async -> SegmentUploader.Outcome {
        let started = MonotonicClock.wallMicros()
        let point = await resumePoint()
        let parts = point.parts
        var section = UploadSection(file: filePath, fileBytes: parts.fileSize, url: objectURL, segmentMode: "fixed",
                                    parallel: parallel, maxRetries: maxRetries)
        section.preset = preset
        section.segmentsTotal = parts.partCount
        var records = point.records
        var notes = point.notes
        if point.stopped { return finish(section, records, started, failure: point.failure, notes: notes) }

        let uploadId: String
        if let resumed = point.uploadId {
            uploadId = resumed
        } else {
            // CreateMultipartUpload, retried on a transient failure.
            let (created, createRecords) = await request("CreateMultipartUpload of \(address)",
                                                         TaskSpec(url: objectURL + "?uploads=", method: "POST",
                                                                  response: .memory(limit: Self.answerLimit)))
            records += createRecords
            switch created {
            case .failure(let message, let ending):
                return finish(section, records, started, failure: (message, ending), notes: notes)
            case .none:
                return finish(section, records, started, failure: nil, notes: notes)
            case .success(let body):
                do {
                    uploadId = try S3InitiateAnswer(xml: body).uploadId
                } catch {
                    return finish(section, records, started,
                                  failure: ("CreateMultipartUpload of \(address) answered without an upload id: \(error)",
                                            .unreadableAnswer), notes: notes)
                }
            }
        }
        let query = Self.query(uploadId: uploadId)
        let key = journalled(uploadId: uploadId, parts: parts, kept: point.kept, notes: &notes)

        var plan = UploadPlan(filePath: filePath, fileSize: parts.fileSize, url: objectURL,
                              partTemplate: objectURL + "?partNumber={number}&" + query, completeURL: nil,
                              sizing: .fixed(parts.partSize), parallel: parallel, maxRetries: maxRetries, preset: preset)
        plan.s3Parts = true
        plan.retryMaxTime = retryMaxTime
        // The entry written above holds the parts kept: the uploader resumes it, skipping them, and journals the rest.
        let uploader = SegmentUploader(plan: plan, engine: engine, journal: key == nil ? nil : journal, journalKey: key,
                                       resume: key != nil, progress: progress)
        var outcome = await uploader.run()
        section = outcome.section
        section.url = Redactor.url(objectURL)
        section.resumed = point.uploadId != nil
        records += outcome.tasks
        let sent = Self.merged(kept: point.kept, sent: outcome.sentParts)
        let expected = S3ETag(partMD5s: sent.map(\.md5))
        var s3 = UploadSection.S3(bucket: address.bucket, key: address.key, parts: parts.partCount,
                                  expectedETag: expected.value)
        s3.uploadId = uploadId
        var failure: (String, UploadEnding)? = outcome.ending == .completed ? nil
            : (outcome.section.failure ?? "interrupted", outcome.ending)
        var objectCompleted = false
        // The request the server answered NoSuchUpload: the upload is gone, and the run with it.
        var gone = outcome.ending == .completed ? nil
            : Self.noSuchUpload(in: outcome.tasks, attempts: outcome.section.attempts)

        if failure == nil, sent.count == parts.partCount {
            let body = S3CompleteRequest(parts: sent.map { .init(number: $0.number, etag: $0.etag) }).body
            let spec = TaskSpec(url: objectURL + "?" + query, method: "POST",
                                body: .pieces(BodyPieces([.bytes(Array(body.utf8))])),
                                response: .memory(limit: Self.answerLimit),
                                headers: [HeaderField(name: "Content-Type", value: "application/xml")])
            let (completed, completeRecords) = await request("CompleteMultipartUpload of \(address)", spec)
            records += completeRecords
            switch completed {
            case .success(let answer):
                if let error = S3ErrorAnswer(xml: answer) {
                    failure = ("CompleteMultipartUpload of \(address) answered 200 with an error: \(error)", .refused)
                } else if let done = try? S3CompleteAnswer(xml: answer) {
                    objectCompleted = true
                    s3.objectETag = done.etag.value
                    s3.etagMatches = done.etag == expected
                    if done.etag != expected {
                        failure = ("the object's ETag \(done.etag) is not the one of the parts sent (\(expected))",
                                   .verificationFailed)
                    }
                } else {
                    failure = ("CompleteMultipartUpload of \(address) answered without the object's ETag", .unreadableAnswer)
                }
            case .failure(let message, let ending):
                failure = (message, ending)
                if completeRecords.last.map(Self.isNoSuchUpload) == true { gone = "CompleteMultipartUpload" }
            case .none:
                failure = ("interrupted before CompleteMultipartUpload answered", .interrupted)
            }
        } else if failure == nil {
            failure = ("interrupted before every part was sent", .interrupted)
        }

        if let gone {
            // Nothing is left on the server to abort, keep or resume: say so, and start no retry of any part.
            failure = ("upload \(uploadId) of \(address) is gone from the server: \(gone) was answered NoSuchUpload "
                       + "(aborted, completed or expired meanwhile, its parts with it); run the command again for a new "
                       + "upload", .refused)
        } else if failure != nil {
            if keepsParts {
                s3.keptParts = true
                outcome.notes.append("the parts stay on the server (--keep-parts): upload id \(uploadId)")
            } else {
                // A stop (SIGINT) cancelled the engine: the abort then cannot go; say what is left.
                let (aborted, abortRecords) = await request("AbortMultipartUpload of \(address)", abortSpec(uploadId))
                records += abortRecords
                if case .success = aborted {
                    s3.aborted = true
                } else {
                    outcome.notes.append("the upload could not be aborted: its parts stay on the server (upload id "
                                         + "\(uploadId); aws s3api abort-multipart-upload removes them)")
                }
            }
        }
        // The entry goes when nothing is left to resume: the object completed, or the upload was aborted.
        if let key, let journal {
            if objectCompleted || s3.aborted || gone != nil {
                try? journal.remove(key)
            } else if failure != nil {
                outcome.notes.append("the same command with --resume continues upload \(uploadId) from the parts the "
                                     + "server holds")
            }
        }
        section.verified = s3.etagMatches == true
        section.s3 = s3
        return finish(section, records, started, failure: failure, notes: notes + outcome.notes)
    }

    /// `uploadId=ID`, the id percent-encoded for a query.
    static func query(uploadId: String) -> String {
        "uploadId=" + S3ObjectAddress.encode(uploadId).replacingOccurrences(of: "/", with: "%2F")
    }

    /// AbortMultipartUpload of `uploadId`.
    func abortSpec(_ uploadId: String) -> TaskSpec {
        TaskSpec(url: objectURL + "?" + Self.query(uploadId: uploadId), method: "DELETE",
                 response: .memory(limit: Self.answerLimit))
    }

    /// The parts of the object in part order: the ones kept on the server and the ones sent (a sent one wins).
    static func merged(kept: [SegmentUploader.SentPart], sent: [SegmentUploader.SentPart]) -> [SegmentUploader.SentPart] {
        let numbers = Set(sent.map(\.number))
        return (kept.filter { !numbers.contains($0.number) } + sent).sorted { $0.number < $1.number }
    }

    /// What one protocol request gave: its answer's body, a failure, or nil when the engine was cancelled.
    enum Answer {
        case success([UInt8])
        case failure(String, UploadEnding)
    }

    /// Sends one protocol request (Create, Complete, Abort), retried up to `maxRetries` times after a transient
    /// failure with the parts' backoff; returns its answer and every attempt's task.
    func request(_ what: String, _ spec: TaskSpec) async -> (Answer?, [TaskRecord]) {
        var records: [TaskRecord] = []
        for attempt in 1...(maxRetries + 1) {
            if attempt > 1 {
                let wait = SegmentUploader.backoffMicros(attempt: attempt, unit: Double.random(in: 0..<1))
                try? await Task.sleep(nanoseconds: UInt64(wait) * 1000)
            }
            guard let record = await engine.run([spec]).first else { return (nil, records) }
            records.append(record)
            if record.error?.errorClass == .cancelled { return (nil, records) }
            let step = Self.judge(record, what)
            if step.succeeded { return (.success(record.responseBody?.bytes ?? []), records) }
            if !step.retryable || attempt == maxRetries + 1 { return (.failure(step.message, step.ending), records) }
        }
        return (nil, records)
    }

    /// How one request went: 2xx, or why not (with S3's error code and message when it sent them) and whether a
    /// retry may help (a transport failure, 408, 429, 5xx but 501, or S3's SlowDown and the like).
    static func judge(_ record: TaskRecord, _ what: String)
        -> (succeeded: Bool, retryable: Bool, message: String, ending: UploadEnding) {
        if let error = record.error, error.errorClass != .http {
            return (false, error.errorClass != .cancelled, "\(what): \(error.errorClass.rawValue): \(error.message)",
                    .transportFailed(error.errorClass))
        }
        guard let status = record.statusCode else { return (false, true, "\(what): no answer", .unreadableAnswer) }
        if (200..<300).contains(status) { return (true, false, "", .completed) }
        let answer = record.responseBody.flatMap { S3ErrorAnswer(xml: $0.bytes) }
        let said = answer.map { ": \($0.describedWithHint)" } ?? ""
        let retryable = RetryPolicy.isRetryable(status: status) || answer?.isRetryable == true
        return (false, retryable, "\(what) answered HTTP \(status)\(said)", .refused)
    }

    /// True when a request was answered S3's NoSuchUpload: the server no longer knows the multipart upload.
    static func isNoSuchUpload(_ record: TaskRecord) -> Bool {
        record.statusCode == 404 && record.responseBody.flatMap { S3ErrorAnswer(xml: $0.bytes) }?.isNoSuchUpload == true
    }

    /// The request of a multipart upload that was answered NoSuchUpload (`UploadPart 3`), from the parts' tasks and
    /// attempts; nil when none was.
    static func noSuchUpload(in tasks: [TaskRecord], attempts: [UploadSection.Attempt]) -> String? {
        guard let record = tasks.first(where: isNoSuchUpload) else { return nil }
        let part = attempts.first { $0.task == record.index }.map { " \($0.segment + 1)" } ?? ""
        return "UploadPart" + part
    }

    /// The ETag header of the last transaction's answer.
    static func etag(of record: TaskRecord) -> S3ETag? {
        record.transactions.last?.responseHeaders?.last { $0.name.lowercased() == "etag" }.map { S3ETag(served: $0.value) }
    }

    private func finish(_ section: UploadSection, _ records: [TaskRecord], _ started: Int64,
                        failure: (String, UploadEnding)?, notes: [String] = []) -> SegmentUploader.Outcome {
        var section = section
        let ended = MonotonicClock.wallMicros()
        section.wallMs = Format.millis(fromMicros: ended - started)
        if ended > started, failure == nil {
            section.effectiveBytesPerSecond = Double(parts.fileSize) * 1e6 / Double(ended - started)
        }
        let interrupted = failure == nil && section.s3?.etagMatches != true
        section.failure = failure?.0 ?? (interrupted ? "interrupted" : nil)
        let ending = failure?.1 ?? (interrupted ? .interrupted : .completed)
        return SegmentUploader.Outcome(tasks: records.sorted { $0.index < $1.index }, section: section, ending: ending,
                                       notes: self.notes + notes)
    }
}
