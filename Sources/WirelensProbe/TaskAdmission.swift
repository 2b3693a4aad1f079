import WirelensCore

/// The engine's admission of tasks: the submissions not started yet, in order, the tasks parked for a retry's
/// backoff, how many tasks run, and whether the run was cancelled.
///
/// Each submitted task gets the engine-wide index that follows the previous submission's; a task starts only while
/// fewer than the concurrency limit run (`nextTask`), and a submission after a cancel is dropped at once.
struct TaskAdmission {
    /// Tasks submitted together, with their batch.
    private struct Submission {
        let specs: [TaskSpec]
        let profile: TaskProfile
        let count: Int
        let batch: Batch
        /// The engine-wide index of the first task.
        let firstIndex: Int
        /// The slot of the next task to start.
        var next = 0
    }

    private var submissions: [Submission] = []
    /// Tasks waiting for their retry's backoff to pass.
    private(set) var parked: [TaskState] = []
    /// Tasks started and not finished.
    private(set) var running = 0
    /// True after a cancel that drops what is submitted later too.
    var cancelled = false
    private var nextIndex = 0

    /// Takes in `count` tasks, task i running `specs[i % specs.count]`, numbered after those taken so far; after a
    /// cancel they are dropped at once (each slot of their batch settled with nothing).
    mutating func admit(specs: [TaskSpec], profile: TaskProfile, count: Int, batch: Batch) {
        let first = nextIndex
        nextIndex += count
        if cancelled {
            for slot in 0..<count { batch.settle(slot: slot, record: nil) }
        } else {
            submissions.append(Submission(specs: specs, profile: profile, count: count, batch: batch, firstIndex: first))
        }
    }

    /// The next task to start, while fewer than `limit` (at least 1) run: it counts as running from here.
    mutating func nextTask(limit: Int) -> TaskState? {
        guard running < max(1, limit), !submissions.isEmpty else { return nil }
        let submission = submissions[0]
        let slot = submission.next
        let task = TaskState(index: submission.firstIndex + slot, spec: submission.specs[slot % submission.specs.count],
                             batch: submission.batch, batchSlot: slot, profile: submission.profile)
        if slot + 1 == submission.count { submissions.removeFirst() } else { submissions[0].next = slot + 1 }
        running += 1
        return task
    }

    /// A running task finished.
    mutating func finished() {
        running -= 1
    }

    /// Parks a task until its retry is due.
    mutating func park(_ task: TaskState) {
        parked.append(task)
    }

    /// Takes every parked task out (to wake, time out or cancel); those that still wait are parked again.
    mutating func takeParked() -> [TaskState] {
        defer { parked.removeAll() }
        return parked
    }

    /// Drops every task not started yet: each slot of their batches is settled with nothing.
    mutating func dropUnstarted() {
        for submission in submissions {
            for slot in submission.next..<submission.count { submission.batch.settle(slot: slot, record: nil) }
        }
        submissions.removeAll()
    }
}
