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
    var records: [TaskRecord?]
    var remaining: Int
    let onTaskFinished: (@Sendable (TaskRecord) -> Void)?
    let completion: @Sendable ([TaskRecord]) -> Void

    init(count: Int, onTaskFinished: (@Sendable (TaskRecord) -> Void)?,
         completion: @escaping @Sendable ([TaskRecord]) -> Void) {
        records = Array(repeating: nil, count: count)
        remaining = count
        self.onTaskFinished = onTaskFinished
        self.completion = completion
    }

    /// Records a finished task (or a dropped one, with nil) and completes the batch after the last.
    func settle(slot: Int, record: TaskRecord?) {
        records[slot] = record
        remaining -= 1
        if let record { onTaskFinished?(record) }
        if remaining == 0 {
            // Move the records out rather than copy them: each copy would retain every string in a record.
            var finished: [TaskRecord] = []
            finished.reserveCapacity(records.count)
            for i in records.indices {
                if let record = records[i].take() { finished.append(record) }
            }
            completion(finished)
        }
    }
}
