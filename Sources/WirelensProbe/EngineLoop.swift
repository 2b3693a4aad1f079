import WirelensCore
import WirelensCurl

/// The engine's loop: drives the multi handle, takes in the commands of other threads, and executes what each task's
/// lifecycle decides, starting and ending its transfers.
///
/// Made on the loop thread by `CurlLoop.start` and owned by that thread alone (`CurlLoopDriver`): no other thread
/// holds a reference, so none of this needs a lock. It decides nothing itself: each task's `TaskLifecycle` decides
/// its redirects, retries and timeouts, `TaskAdmission` which task starts next, `TransferLauncher` makes each
/// transfer and `TransferRecorder` its record, and the loop executes the actions they return.
final class EngineLoop: CurlLoopDriver {
    let options: ProbeOptions
    let anchor: ClockAnchor
    let progress: TransferProgress?
    let multi: CurlMulti
    private var profiles: ProfileTable
    private var admission = TaskAdmission()
    private var transfers = TransfersInFlight()
    private var handles: HandlePool
    private let launcher: TransferLauncher
    private let recorder: TransferRecorder
    /// The per-connection tables: open sockets and the transfers on each (libcurl's socket callbacks fill it), and
    /// the TLS facts of each connection for the transactions that reuse it; pruned as libcurl closes connections.
    private let sockets = ConnectionSockets()
    /// Which h2c prior-knowledge transfers open their origin's connection and which join it (libcurl before 8.0).
    private let priorKnowledgeRoles = PriorKnowledgeRoles()
    private var random = SystemRandomNumberGenerator()
    /// Parsed forms of the URLs seen so far (runs repeat the same few URLs many times).
    private var targets = URLMemo<TargetURL>()
    /// Finished transfers read from libcurl in one loop pass (kept to reuse its storage).
    private var finishedBuffer: [(easy: CurlEasy, error: CurlError?)] = []

    init(options: ProbeOptions, progress: TransferProgress?, anchor: ClockAnchor, multi: CurlMulti,
         pipeStop: PipeStop) throws(CurlError) {
        self.options = options
        self.progress = progress
        self.anchor = anchor
        self.multi = multi
        profiles = try ProfileTable(options: options, anchor: anchor)
        handles = HandlePool(limit: options.concurrency)
        launcher = TransferLauncher(sockets: sockets, host: HostSampler(), pipeStop: pipeStop, progress: progress,
                                    priorKnowledgeRoles: priorKnowledgeRoles)
        recorder = TransferRecorder(multi: multi, anchor: anchor, compressed: options.compressed)
        let sockets = sockets
        let roles = priorKnowledgeRoles
        multi.onSocketClose = { socket in
            sockets.closing(socket, at: MonotonicClock.now())
            roles.closed(socket)
        }
    }

    // MARK: CurlLoopDriver

    func receive(_ command: Command) {
        switch command {
        case .submit(let order):
            let found = profiles.profile(for: order.taskOptions)
            found?.runStarts()
            let batch = Batch(count: order.count, keepsRecords: order.keepsRecords, onTaskFinished: order.onTaskFinished,
                              completion: order.completion)
            // The jar is written before the run's caller gets its records.
            batch.beforeCompletion = found.map { profile in { profile.runEnded() } }
            guard let profile = found else {
                // Header lists libcurl could not allocate: the tasks are dropped, as after a cancel.
                for slot in 0..<order.count { batch.settle(slot: slot, record: nil) }
                return
            }
            admission.admit(specs: order.specs, profile: profile, count: order.count, batch: batch)
        case .cancel(let final):
            let before = admission.cancelled
            cancelAll()
            if !final { admission.cancelled = before }
        case .inspect(let answer):
            let counts = sockets.counts
            answer(TableCounts(sockets: counts.sockets, ports: counts.ports, connections: counts.connections, tls: counts.tls,
                               active: transfers.count))
        }
    }

    func pass() -> Int32 {
        startReadyWork()
        do {
            try multi.perform()
        } catch {
            failed(error)
        }
        transfers.lookAtUploads(progress: progress)
        transfers.sampleConnections()
        collectFinishedTransfers()
        enforceTimeouts()
        startReadyWork()
        return pollTimeoutMillis()
    }

    /// libcurl's perform or poll failed: every transfer in flight ends with the failure (retried as any error is).
    func failed(_ error: CurlError) {
        for ctx in transfers.all {
            ctx.failure.engine = error.description
            complete(ctx, result: nil)
        }
    }

    func stop() {
        cancelAll()
        handles.removeAll()
    }

    // MARK: Tasks

    /// Starts pending tasks up to the concurrency limit, and retries whose backoff has passed.
    private func startReadyWork() {
        if !admission.parked.isEmpty {
            let now = MonotonicClock.now()
            for task in admission.takeParked() {
                let action = task.lifecycle.wake(at: now)
                if case .none = action { admission.park(task) } else { perform(action, for: task) }
            }
        }
        while let task = admission.nextTask(limit: options.concurrency) {
            perform(task.lifecycle.start(at: MonotonicClock.now()), for: task)
        }
    }

    /// Executes what a task's lifecycle decided (`.send` is taken where the URL is parsed, `.abort` where the transfer
    /// is at hand).
    private func perform(_ action: consuming TaskLifecycle.Action, for task: TaskState) {
        switch consume action {
        case .none:
            break
        case .transact(let attempt):
            startTransaction(task, attempt)
        case .park:
            admission.park(task)
        case .finish(var record):
            record.responseBody = task.responseBody
            admission.finished()
            task.batch.settle(slot: task.batchSlot, record: record)
        case .send, .abort:
            assertionFailure("task \(task.batchSlot): an action taken elsewhere reached perform")
        case .invalid(let why):
            assertionFailure("task \(task.batchSlot): \(why)")
        }
    }

    private func pollTimeoutMillis() -> Int32 {
        var now: Int64?
        var look = PollTimeout.longest
        if transfers.awaitsAcknowledgement {
            let stamp = MonotonicClock.now()
            now = stamp
            look = transfers.millisToNextLook(at: stamp)
        }
        var next = transfers.nextDeadline ?? .max
        for task in admission.parked { next = min(next, task.lifecycle.wakeTime ?? .max) }
        return PollTimeout.millis(deadline: next == .max ? nil : next, lookMillis: look) { now ?? MonotonicClock.now() }
    }

    // MARK: Transactions

    /// Starts the transaction a task's lifecycle decided: parses its URL, lets the lifecycle say what it may carry,
    /// and adds its easy handle to the multi handle.
    private func startTransaction(_ task: TaskState, _ attempt: TaskLifecycle.Attempt) {
        let now = MonotonicClock.now()
        var target: TargetURL
        let access: TaskLifecycle.Access
        do {
            target = try parsedTarget(attempt.url)
            let action = task.lifecycle.resolve(origin: target.origin, userInfo: target.userInfo, at: now)
            guard case .send(let granted) = action else {
                perform(action, for: task)
                return
            }
            access = granted
            if access.userInfo != target.userInfo { target = try target.replacingUserInfo(access.userInfo) }
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .protocol, message: error.description))
            return
        }
        let handle: CurlEasy
        do throws(CurlError) {
            handle = try handles.take()
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description))
            return
        }
        let (ctx, settings) = launcher.transfer(for: task, attempt, target: target, access: access, handle: handle,
                                                now: now)
        do {
            try task.profile.configurator.configure(handle, for: settings, observer: ctx)
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
            return
        }
        transfers.insert(ctx)
        do {
            try multi.add(handle)
        } catch {
            transfers.remove(ctx)
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
        }
    }

    private func parsedTarget(_ url: String) throws(ProbeError) -> TargetURL {
        try targets.value(for: url) { (url) throws(ProbeError) in try TargetURL(url) }
    }

    /// Ends a task whose transaction could not start: the lifecycle records the failed transaction and finishes the
    /// task. A context that was already made is released and its easy handle freed.
    private func failBeforeStart(_ task: TaskState, at now: Int64, error: TransferError,
                                 discarding ctx: TransferContext? = nil) {
        if let ctx {
            ctx.release()
            ctx.handle.reset()
        }
        perform(task.lifecycle.startFailed(error, at: now), for: task)
    }

    private func collectFinishedTransfers() {
        // All messages are read before any transfer completes: completing starts new transfers.
        multi.finished(into: &finishedBuffer)
        for (easy, error) in finishedBuffer {
            guard let ctx = transfers[easy] else { continue }
            complete(ctx, result: error.map { .failure($0) } ?? .success(()))
        }
        finishedBuffer.removeAll(keepingCapacity: true)
    }

    /// Aborts transfers whose task passed its total timeout or that moved no byte for the idle timeout, and ends
    /// parked tasks past their deadline.
    private func enforceTimeouts() {
        let now = MonotonicClock.now()
        for (ctx, reason) in transfers.expired(at: now) {
            ctx.failure.abortReason = reason
            complete(ctx, result: nil)
        }
        if !admission.parked.isEmpty {
            var overdue: [(TaskState, TaskLifecycle.Action)] = []
            for task in admission.takeParked() {
                guard task.profile.rules.totalTimeout != nil else {
                    admission.park(task)
                    continue
                }
                let action = task.lifecycle.checkTimeouts(at: now)
                if case .none = action { admission.park(task) } else { overdue.append((task, action)) }
            }
            for (task, action) in overdue { perform(action, for: task) }
        }
    }

    private func cancelAll() {
        admission.cancelled = true
        let now = MonotonicClock.now()
        for ctx in transfers.all {
            if case .abort(let reason) = ctx.task.lifecycle.cancel(at: now) { ctx.failure.abortReason = reason }
            complete(ctx, result: nil)
        }
        for task in admission.takeParked() { perform(task.lifecycle.cancel(at: now), for: task) }
        admission.dropUnstarted()
    }

    /// Ends a transfer: reads libcurl's facts, records the transaction, and hands its end to the task's lifecycle,
    /// which follows a redirect, parks for a retry or finishes the task. `result` is libcurl's (nil when the engine
    /// ended the transfer itself).
    private func complete(_ ctx: TransferContext, result: Result<Void, CurlError>?) {
        if case .failure? = result, ctx.handle.refusedNewConnection, launcher.restart(ctx, in: multi) { return }
        let recorded = recorder.end(ctx, result: result, in: &transfers)
        let task = ctx.task
        for dead in recorded.resent { perform(task.lifecycle.resent(dead), for: task) }
        if let body = ctx.response.writer.body { task.responseBody = body }
        ctx.release()
        handles.recycle(ctx.handle)
        perform(task.lifecycle.ended(recorded.metrics, at: recorded.end, location: recorded.location,
                                     retryAfter: ctx.response.head.retryAfter, runCancelled: admission.cancelled,
                                     random: &random), for: task)
    }
}
