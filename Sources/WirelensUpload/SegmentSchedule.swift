import WirelensCore

/// A segmented upload's schedule, without sockets: which segment goes next and with which attempt number, what a
/// finished attempt's verdict does to the queue, the sizer and the report's counters, and when the upload gives up.
///
/// `SegmentUploader` runs the attempts and feeds each one's verdict back; every decision is here, so that a test
/// drives retries, give-ups and interruptions with made-up verdicts (`SegmentScheduleTests`), as `TaskLifecycle`'s
/// tests do for a task.
struct SegmentSchedule {
    let plan: UploadPlan
    private(set) var queue: SegmentQueue
    private(set) var sizer: SegmentSizer
    /// The report's upload section, counters kept as attempts finish.
    var section: UploadSection
    /// Why the upload gave up, and how it ends; the first failure only.
    private(set) var failure: (message: String, ending: UploadEnding)?
    /// True once an attempt was dropped or cancelled (the engine was stopped).
    private(set) var interrupted = false
    private(set) var inFlight = 0
    /// Bytes of accepted segments.
    private(set) var sentBytes: Int64 = 0
    private var lastSize: Int64?
    private var failuresInARow = 0
    private let failureLimit: Int

    /// What a finished attempt asks of the uploader beyond the schedule's own state.
    enum Effect: Equatable {
        case none
        /// The segment was accepted: record it in the journal.
        case journal(Segment)
        /// The upload gave up: stop the attempts in flight.
        case cancelEngine
    }

    init(plan: UploadPlan, queue: SegmentQueue, sizer: SegmentSizer, section: UploadSection) {
        self.plan = plan
        self.queue = queue
        self.sizer = sizer
        self.section = section
        failureLimit = Self.failuresInARowLimit(parallel: plan.parallel)
    }

    /// Attempts failing in a row after which the upload stops: a server that fails everything, not a flaky part.
    static func failuresInARowLimit(parallel: Int) -> Int { max(8, 2 * parallel) }

    /// The next segment to send and its attempt number (1 for the first), or nil when none may start now: the upload
    /// gave up or was stopped, `parallel` are in flight, the first segment of auto sizing is still measuring, or none
    /// is left. `elapsedMicros` is the upload's time so far, for the report's size changes.
    mutating func next(elapsedMicros: Int64) -> (segment: Segment, attempt: Int)? {
        guard failure == nil, !interrupted, inFlight < plan.parallel, !(sizer.awaitsMeasurement && inFlight > 0)
        else { return nil }
        let fresh = queue.uncarvedBytes > 0
        let size = sizer.nextSize
        guard let segment = queue.next(size: size) else { return nil }
        if fresh, size != lastSize {
            section.segmentSizes.append(.init(fromSegment: segment.index, bytes: size,
                                              atMs: Format.millis(fromMicros: elapsedMicros)))
            lastSize = size
        }
        inFlight += 1
        section.peakInFlight = max(section.peakInFlight ?? 0, inFlight)
        return (segment, (queue.failures[segment.index] ?? 0) + 1)
    }

    /// An attempt dropped before it started (the engine was cancelled): the segment goes back, the upload is
    /// interrupted.
    mutating func dropped(_ segment: Segment) {
        inFlight -= 1
        interrupted = true
        queue.release(segment.index)
    }

    /// A finished attempt's verdict, with its task, request body bytes sent and the upload's time so far.
    mutating func finished(_ segment: Segment, attempt: Int, verdict: SegmentVerdict, record: TaskRecord,
                           bodyBytes body: Int64, elapsedMicros: Int64) -> Effect {
        inFlight -= 1
        section.attempts.append(.init(task: record.index, segment: segment.index, offset: segment.offset,
                                      length: segment.length, attempt: attempt, succeeded: verdict == .accepted))
        switch verdict {
        case .accepted:
            queue.succeed(segment.index)
            sentBytes += segment.length
            failuresInARow = 0
            sizer.observe(length: segment.length, micros: record.duration)
            return .journal(segment)
        case .cancelled:
            interrupted = true
            queue.release(segment.index)
            return .none
        case .retryable(let reason):
            section.failedAttempts += 1
            section.bytesSentTwice += body
            section.timeLostToRetriesMs += Format.millis(fromMicros: record.duration)
            failuresInARow += 1
            // Past --retry-max-time a failed segment is not tried again: it counts as exhausted.
            let inTime = plan.retryMaxTime.map { elapsedMicros < $0 } ?? true
            if case .exhausted(let count) = queue.fail(segment.index, maxRetries: inTime ? plan.maxRetries : 0),
               failure == nil {
                // The limit that stopped it: the retries, or the time they may take (`inTime` is true without one).
                let limit = inTime ? "--retry \(plan.maxRetries)"
                    : "--retry-max-time \(DurationText.format(micros: plan.retryMaxTime ?? 0)) passed"
                failure = ("segment \(segment.index) (\(segment.contentRange(total: plan.fileSize))) failed "
                           + "\(count) times, the last: \(reason); giving up (\(limit))",
                           .failed(record, otherwise: .refused))
                return .cancelEngine
            }
            if failuresInARow >= failureLimit, failure == nil {
                // Not a flaky part but a server that fails everything: stop before every segment burns its retries.
                failure = ("\(failuresInARow) attempts in a row failed, the last (segment \(segment.index)): "
                           + "\(reason); giving up", .failed(record, otherwise: .refused))
                return .cancelEngine
            }
            return .none
        case .fatal(let reason):
            section.failedAttempts += 1
            queue.fail(segment.index, maxRetries: 0)
            failuresInARow += 1
            guard failure == nil else { return .none }
            failure = (reason, .failed(record, otherwise: .unreadableAnswer))
            return .cancelEngine
        }
    }

    /// True when the upload goes on to its complete call: it neither failed nor was interrupted.
    var mayComplete: Bool { failure == nil && !interrupted }

    /// The complete call's answer: the server assembled `size` bytes with SHA-256 `sha256`. The upload is verified
    /// when both are the file's (`fileSHA256`, nil when the file could not be read); otherwise it failed.
    mutating func assembled(size: Int64, sha256: String, fileSHA256: String?) {
        section.serverBytes = size
        section.serverSHA256 = sha256
        if let fileSHA256, sha256 == fileSHA256, size == plan.fileSize {
            section.verified = true
        } else {
            failure = ("the server's assembled file does not match: \(size) bytes, SHA-256 \(sha256); "
                       + "the file: \(plan.fileSize) bytes, SHA-256 \(fileSHA256 ?? "unreadable")", .verificationFailed)
        }
    }

    /// The complete call failed for good (out of retries, or refused).
    mutating func completeFailed(_ message: String, ending: UploadEnding) {
        failure = (message, ending)
    }

    /// The complete call was dropped or cancelled: the engine was stopped.
    mutating func completeInterrupted() {
        interrupted = true
    }

    /// How the upload ended, its section's failure line set: the first failure (a failure cancels the attempts in
    /// flight: the failure, not the cancellation, is the outcome), else an interruption, else completed.
    mutating func end() -> UploadEnding {
        section.failure = failure?.message
        if interrupted, section.failure == nil { section.failure = "interrupted before every segment was sent" }
        return failure?.ending ?? (interrupted ? .interrupted : .completed)
    }

    /// Closes the counters once no attempt is left; an upload that neither failed nor sent everything was interrupted.
    mutating func close() {
        section.segmentsRetried = queue.segmentsRetried
        section.segmentsSent = section.attempts.filter(\.succeeded).count
        section.segmentsTotal = queue.segmentCount(size: sizer.nextSize)
        if !queue.isComplete, failure == nil { interrupted = true }
    }
}
