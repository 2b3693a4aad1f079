import WirelensCore

/// The engine's bookkeeping for one task while it runs: where it is in its redirects and retries.
final class TaskState {
    let index: Int
    let spec: TaskSpec
    let batch: Batch
    let batchSlot: Int
    /// Monotonic ns when the task started its first transaction.
    var started: Int64 = 0
    /// Monotonic ns after which the task fails with a total timeout.
    var deadline: Int64 = .max
    /// Monotonic ns when the task's latest transaction ended.
    var lastEnd: Int64?
    var url: String
    var method: String
    var sendsBody: Bool
    var redirects = 0
    var retries = 0
    var transactions: [TransactionMetrics] = []
    /// When a retry is due (monotonic ns), while the task waits out its backoff.
    var retryDue: Int64?
    /// The origin of the task's own URL, set when its first transaction starts: hops elsewhere get no credentials.
    var origin: Origin?
    /// The user info of the task's own URL, which hops that keep credentials carry when their URL has none.
    var userInfo: TargetURL.UserInfo?
    /// The wait before the retry that is due (µs, backoff or Retry-After after the cap), and the server's
    /// Retry-After as asked, for the retry's record.
    var retryWait: (planned: Int64, requested: Int64?)?

    init(index: Int, spec: TaskSpec, batch: Batch, batchSlot: Int) {
        self.index = index
        self.spec = spec
        self.batch = batch
        self.batchSlot = batchSlot
        url = spec.url
        method = spec.method
        sendsBody = spec.body != .none
    }
}

/// A group of tasks submitted together, completed when every one has finished or been dropped.
final class Batch {
    /// The records by slot; a slot not settled yet, or dropped, holds `placeholder`. Empty when the records are
    /// not kept (each went to `onTaskFinished`).
    private var records: [TaskRecord]
    private let keepsRecords: Bool
    private var remaining: Int
    private var dropped = 0
    let onTaskFinished: (@Sendable (TaskRecord) -> Void)?
    let completion: @Sendable ([TaskRecord]) -> Void

    /// Stands in for a record not made yet; its index, -1, is no task's.
    private static let placeholder = TaskRecord(index: -1, url: "", method: "", startedAt: 0, endedAt: 0, redirectCount: 0,
                                                retries: 0, statusCode: nil, error: nil, transactions: [])

    init(count: Int, keepsRecords: Bool = true, onTaskFinished: (@Sendable (TaskRecord) -> Void)?,
         completion: @escaping @Sendable ([TaskRecord]) -> Void) {
        self.keepsRecords = keepsRecords
        records = keepsRecords ? Array(repeating: Self.placeholder, count: count) : []
        remaining = count
        self.onTaskFinished = onTaskFinished
        self.completion = completion
    }

    /// Records a finished task (or a dropped one, with nil) and completes the batch after the last.
    func settle(slot: Int, record: consuming TaskRecord?) {
        if let finished = record.take() {
            onTaskFinished?(finished)
            if keepsRecords { records[slot] = finished }
        } else {
            dropped += 1
        }
        remaining -= 1
        if remaining == 0 {
            // Hand the array over as it is (no copy of 20k records) once the dropped slots are gone.
            if dropped > 0, keepsRecords { records.removeAll { $0.index < 0 } }
            let finished = records
            records = []
            completion(finished)
        }
    }
}
