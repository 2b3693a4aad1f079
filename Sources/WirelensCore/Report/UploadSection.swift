/// The `upload` section of a report written by `wirelens upload`: what the segmented upload did as a whole.
/// The segment attempts themselves are the report's tasks.
public struct UploadSection: Sendable, Equatable, Codable {
    /// The local file.
    public var file: String
    public var fileBytes: Int64
    /// The file's SHA-256 (hex), when it was computed.
    public var fileSHA256: String?
    /// The upload's base URL or part template (redacted).
    public var url: String
    /// The preset asked for, if any.
    public var preset: String?
    /// "fixed" or "auto".
    public var segmentMode: String
    /// Segment sizes chosen over time: each entry starts at a segment and holds until the next one.
    public var segmentSizes: [SizeChange]
    /// Segments allowed in flight at once (`--parallel`).
    public var parallel: Int
    /// Segments that were in flight at once at most in this run (nil in reports written before it was counted).
    public var peakInFlight: Int?
    /// Retries allowed per segment.
    public var maxRetries: Int
    /// Segments of the file in all (resumed ones included).
    public var segmentsTotal: Int
    /// Segments sent in this run and accepted.
    public var segmentsSent: Int
    /// Segments that failed at least once.
    public var segmentsRetried: Int
    /// Failed attempts in all.
    public var failedAttempts: Int
    /// Request body bytes of failed attempts: bytes that had to be sent again.
    public var bytesSentTwice: Int64
    /// The time failed attempts took, added up over attempts (ms).
    public var timeLostToRetriesMs: Double
    /// Wall time of the run (ms).
    public var wallMs: Double
    /// File bytes sent in this run divided by the wall time.
    public var effectiveBytesPerSecond: Double?
    /// True when the run resumed a journal entry.
    public var resumed: Bool
    /// Segments a journal said were done and were not sent again.
    public var resumedSegmentsSkipped: Int
    public var resumedBytesSkipped: Int64
    /// What the complete call answered: the assembled size and SHA-256 (nil without a complete call).
    public var serverBytes: Int64?
    public var serverSHA256: String?
    /// True when the server's assembled SHA-256 equals the file's.
    public var verified: Bool
    /// Why the upload did not complete, or nil.
    public var failure: String?
    /// For an upload to an S3-compatible store: the object, its upload and its ETag check.
    public var s3: S3?
    /// What the user should know that is not a failure (a resume that had to start again, and why); nil for none.
    public var notes: [String]?
    /// Every attempt: which task sent which segment.
    public var attempts: [Attempt]
    /// The verdict holding the most time over the attempts' transactions, nil without kernel facts.
    public var verdict: VerdictShare?
    /// Why parallel segments helped or not, in one sentence made from `verdict`.
    public var why: String?

    /// Sets `verdict` and `why` from the attempts' transactions among `tasks` (the complete call left out).
    public mutating func explain(tasks: [TaskRecord]) {
        let sent = Set(attempts.map(\.task))
        let tally = VerdictTally(tasks.filter { sent.contains($0.index) }.flatMap(\.transactions))
        verdict = VerdictShare.leading([tally.stats])
        why = verdict.map(Self.why)
    }

    /// "each connection was held back by the server's receive window (server-window, 93% of the transaction
    /// time): more segments in flight help".
    public static func why(_ lead: VerdictShare) -> String {
        lead.parallelismAdvice("segments").map { lead.phrase + ": " + $0 } ?? lead.phrase
    }

    /// What an upload to an S3-compatible store did besides its parts.
    public struct S3: Sendable, Equatable, Codable {
        public var bucket: String
        public var key: String
        /// The multipart upload's id; nil for a single PutObject.
        public var uploadId: String?
        /// 1 for a PutObject, else the multipart upload's parts.
        public var parts: Int
        /// The ETag the server gave the object, nil when it gave none.
        public var objectETag: String?
        /// The ETag S3 computes from what was sent: the body's MD5, or the MD5 of the parts' MD5s then `-N`.
        public var expectedETag: String
        /// True when `objectETag` equals `expectedETag`; nil when the object was not completed.
        public var etagMatches: Bool?
        /// True when an upload that did not complete was aborted (AbortMultipartUpload answered 2xx).
        public var aborted = false
        /// True when its parts were left on the server on purpose (`--keep-parts`).
        public var keptParts = false

        public init(bucket: String, key: String, parts: Int, expectedETag: String) {
            self.bucket = bucket
            self.key = key
            self.parts = parts
            self.expectedETag = expectedETag
        }
    }

    /// A segment size in effect from segment `fromSegment` on.
    public struct SizeChange: Sendable, Equatable, Codable {
        /// The index of the first segment of this size.
        public var fromSegment: Int
        public var bytes: Int64
        /// When the size was chosen, ms from the run's start.
        public var atMs: Double

        public init(fromSegment: Int, bytes: Int64, atMs: Double) {
            self.fromSegment = fromSegment
            self.bytes = bytes
            self.atMs = atMs
        }
    }

    /// One attempt at one segment.
    public struct Attempt: Sendable, Equatable, Codable {
        /// The report task that holds the attempt's transactions.
        public var task: Int
        public var segment: Int
        public var offset: Int64
        public var length: Int64
        /// 1 for the first attempt of the segment.
        public var attempt: Int
        public var succeeded: Bool

        public init(task: Int, segment: Int, offset: Int64, length: Int64, attempt: Int, succeeded: Bool) {
            self.task = task
            self.segment = segment
            self.offset = offset
            self.length = length
            self.attempt = attempt
            self.succeeded = succeeded
        }
    }

    public init(file: String, fileBytes: Int64, url: String, segmentMode: String, parallel: Int, maxRetries: Int) {
        self.file = file
        self.fileBytes = fileBytes
        self.url = Redactor.url(url)
        self.segmentMode = segmentMode
        self.segmentSizes = []
        self.parallel = parallel
        self.maxRetries = maxRetries
        segmentsTotal = 0
        segmentsSent = 0
        segmentsRetried = 0
        failedAttempts = 0
        bytesSentTwice = 0
        timeLostToRetriesMs = 0
        wallMs = 0
        resumed = false
        resumedSegmentsSkipped = 0
        resumedBytesSkipped = 0
        verified = false
        attempts = []
    }
}
