import Dispatch
import Foundation
import Synchronization
import WirelensConcurrency

/// Stores check results in the history from a thread of its own, in batches, and removes the runs older than the
/// retention window in bounded batches between them, so that neither the database nor its size slows the checks.
///
/// `add` only appends to a list in memory: the checks never wait for SQLite. The writer thread stores what has
/// gathered in one transaction once the oldest entry has waited `linger`, or at once when `batchSize` are waiting
/// (one commit, so one sync of the WAL, per batch rather than per result). When the database falls so far behind
/// that `maxPending` wait, further results are dropped and counted rather than held. With `keep`, the runs older
/// than that are removed at the start and every `pruneEvery`, `pruneBatch` rows per transaction with the batches
/// of new results between them. Trouble (a write that fails, results dropped) goes to `problem` once per new kind
/// of trouble, and marks the writer `failed`.
package final class HistoryWriter: Sendable {
    /// How the writer batches and prunes.
    package struct Policy: Sendable, Equatable {
        /// How long (µs) the first result of a batch waits for others.
        package var linger: Int64 = 500_000
        /// A batch is stored at once when this many results wait.
        package var batchSize = 1000
        /// At most this many results wait; more are dropped and counted.
        package var maxPending = 100_000
        /// How long (µs) runs are kept; nil: for ever.
        package var keep: Int64?
        /// The most rows one retention transaction removes.
        package var pruneBatch = 10_000
        /// How often (µs) the old runs are removed after the first time, at the start.
        package var pruneEvery: Int64 = 600_000_000

        package init(keep: Int64? = nil) {
            self.keep = keep
        }
    }

    /// What the producers and the writer thread share.
    private struct State {
        var pending: [HistoryEntry] = []
        /// When the oldest pending entry was added (uptime ns).
        var firstAt: UInt64 = 0
        var closed = false
        var dropped = 0
        var failed = false
    }

    /// The shared state and the writer's wake-up, apart from `self` so that the thread does not keep it alive.
    private final class Inbox: Sendable {
        let state = Mutex(State())
        /// Signalled on the first pending entry, a full batch, and at close.
        let wake = DispatchSemaphore(value: 0)
    }

    private let inbox = Inbox()
    private let policy: Policy
    private let path: String
    private let problem: @Sendable (HistoryTrouble) -> Void
    private let thread: BackgroundThread<Void>

    /// Starts the writer thread for `history`.
    package init(history: CheckHistory, policy: Policy = Policy(),
                problem: @escaping @Sendable (HistoryTrouble) -> Void) {
        self.policy = policy
        self.path = history.path
        self.problem = problem
        let inbox = self.inbox
        thread = BackgroundThread(name: "wirelens-history") {
            Self.loop(history: history, inbox: inbox, policy: policy, problem: problem)
        }
    }

    /// Hands a result to the writer; never waits for the database.
    package func add(_ entry: HistoryEntry) {
        let (wake, droppedFirst) = inbox.state.withLock { state -> (Bool, Bool) in
            guard !state.closed else { return (false, false) }
            guard state.pending.count < policy.maxPending else {
                state.dropped += 1
                state.failed = true
                return (false, state.dropped == 1)
            }
            if state.pending.isEmpty { state.firstAt = DispatchTime.now().uptimeNanoseconds }
            state.pending.append(entry)
            return (state.pending.count == 1 || state.pending.count == policy.batchSize, false)
        }
        if wake { inbox.wake.signal() }
        if droppedFirst {
            problem(HistoryTrouble(path: path, reason: "writes fall behind: \(policy.maxPending) results wait, later "
                                   + "ones are dropped", damaged: false))
        }
    }

    /// True once a result could not be stored (a write failed, or results were dropped).
    package var failed: Bool {
        inbox.state.withLock { $0.failed }
    }

    /// The results dropped because too many waited.
    package var dropped: Int {
        inbox.state.withLock { $0.dropped }
    }

    /// Stores what is pending and stops the thread; later results are ignored. Waits for the last batch.
    package func finish() {
        inbox.state.withLock { $0.closed = true }
        inbox.wake.signal()
        thread.join()
    }

    deinit {
        finish()
    }

    /// The writer thread: batches when due, a retention batch when due, else waits for the next of them.
    private static func loop(history: CheckHistory, inbox: Inbox, policy: Policy,
                             problem: @Sendable (HistoryTrouble) -> Void) {
        let linger = UInt64(max(0, policy.linger)) * 1000
        var nextPrune: UInt64? = policy.keep == nil ? nil : 0
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (batch, closed, batchDue) = inbox.state.withLock { state -> ([HistoryEntry], Bool, UInt64?) in
                let due = state.closed || state.pending.count >= policy.batchSize
                    || (!state.pending.isEmpty && now >= state.firstAt + linger)
                guard due else { return ([], false, state.pending.isEmpty ? nil : state.firstAt + linger) }
                defer { state.pending = [] }
                return (state.pending, state.closed, nil)
            }
            if !batch.isEmpty, case .failed(let report) = history.store(batch) {
                inbox.state.withLock { $0.failed = true }
                if let report { problem(report) }
            }
            if closed { return }
            if let keep = policy.keep, let due = nextPrune, now >= due {
                let cut = Int64(Date().timeIntervalSince1970 * 1e6) - keep
                switch history.prune(before: cut, limit: policy.pruneBatch) {
                case .success(let removed):
                    // A full batch: more are left, removed after the results that gathered meanwhile.
                    nextPrune = removed >= policy.pruneBatch ? now : now + UInt64(policy.pruneEvery) * 1000
                case .failure(let failure):
                    inbox.state.withLock { $0.failed = true }
                    if let report = failure.report { problem(report) }
                    nextPrune = now + UInt64(policy.pruneEvery) * 1000
                }
                continue
            }
            let until = [batchDue, nextPrune].compactMap { $0 }.min()
            _ = inbox.wake.wait(timeout: until.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
        }
    }
}
