import WirelensCore

/// The engine's bookkeeping for one task while it runs: its spec, its batch slot and its lifecycle (where it is in
/// its redirects and retries, decided by `TaskLifecycle`).
final class TaskState {
    let spec: TaskSpec
    let batch: Batch
    let batchSlot: Int
    /// The options, rules and header lists of the task's transfers (the engine's, or the task's own).
    let profile: TaskProfile
    var lifecycle: TaskLifecycle
    /// The body kept in memory by the latest transaction that had one (`ResponseSink.memory`).
    var responseBody: ResponseBody?

    init(index: Int, spec: TaskSpec, batch: Batch, batchSlot: Int, profile: TaskProfile) {
        self.spec = spec
        self.batch = batch
        self.batchSlot = batchSlot
        self.profile = profile
        lifecycle = TaskLifecycle(index: index, url: spec.url,
                                  request: RedirectPolicy.Request(method: spec.method, bodyKind: spec.bodyKind,
                                                                  keepsMethod: spec.keepsMethod),
                                  sendsBody: spec.body != .none, rules: profile.rules)
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
    /// Runs on the loop thread once the last task has settled, before `completion` (the cookie jar's write).
    var beforeCompletion: (() -> Void)?

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
            beforeCompletion?()
            completion(finished)
        }
    }
}
