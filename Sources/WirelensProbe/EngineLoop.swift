import WirelensCore
import WirelensCurl

/// The engine's loop: the multi handle, the transfers in flight, the tasks waiting and the per-connection tables.
///
/// Made on the loop thread by `CurlLoop.start` and owned by that thread alone (`CurlLoopDriver`): no other thread
/// holds a reference, so none of this needs a lock. It decides nothing itself: each task's `TaskLifecycle` decides
/// its redirects, retries and timeouts, and the loop executes the actions it returns.
final class EngineLoop: CurlLoopDriver {
    let options: ProbeOptions
    let anchor: ClockAnchor
    let progress: TransferProgress?
    let multi: CurlMulti
    /// The engine's own options as a profile: the rules and header lists of tasks submitted without options of
    /// their own.
    private let engineProfile: TaskProfile
    /// The profiles of the task options submitted so far, each with the options object it was built from (held, so
    /// that its identifier stays its own); emptied when it grows past `profileLimit`.
    private var profiles: [ObjectIdentifier: (owner: TaskOptions, profile: TaskProfile)] = [:]
    /// Raised when the run is cancelled, for a pipe body's reader waiting for its writer.
    private let pipeStop: PipeStop

    /// Submitted tasks not started yet, batch by batch, oldest first (a TaskState is made when a task starts).
    private var submissions: [Submission] = []
    private var active: [ObjectIdentifier: TransferContext] = [:]
    private var waiting: [TaskState] = []
    private var tasksInFlight = 0
    private var cancelled = false
    private var nextTaskIndex = 0
    /// The per-connection tables: open sockets and the transfers on each (libcurl's socket callbacks fill it), and
    /// the TLS facts of each connection for the transactions that reuse it; pruned as libcurl closes connections.
    private let sockets = ConnectionSockets()
    /// What the host gives the loop thread, for the transfers' `client-cpu` evidence.
    private let host = HostSampler()
    /// Which h2c prior-knowledge transfers open their origin's connection and which join it (libcurl before 8.0).
    private let priorKnowledgeRoles = PriorKnowledgeRoles()
    /// The request bodies in flight: when their last byte reached the server, and their bytes not acknowledged yet.
    private var uploads = UploadWatch()
    private var random = SystemRandomNumberGenerator()
    /// Parsed forms of the URLs seen so far (runs repeat the same few URLs many times).
    private var targets = URLMemo<TargetURL>()
    /// Finished transfers read from libcurl in one loop pass (kept to reuse its storage).
    private var finishedBuffer: [(easy: CurlEasy, error: CurlError?)] = []
    /// Easy handles kept for reuse (curl_easy_reset clears their options; connections live in the multi handle).
    private var spareHandles: [CurlEasy] = []

    /// What other threads ask of the loop (through `CurlLoop`'s inbox).
    enum Command: Sendable {
        case submit(Order)
        /// Ends what runs and waits; `final`: and every task submitted later (`Engine.cancel()`).
        case cancel(final: Bool)
        case inspect(@Sendable (TableCounts) -> Void)
    }

    /// Tasks submitted together: `count` of them, task i running `specs[i % specs.count]`.
    struct Order: Sendable {
        let specs: [TaskSpec]
        /// The tasks' own options; nil: the engine's.
        let taskOptions: TaskOptions?
        let count: Int
        let keepsRecords: Bool
        let onTaskFinished: (@Sendable (TaskRecord) -> Void)?
        let completion: @Sendable ([TaskRecord]) -> Void
    }

    /// The sizes of the per-connection tables and of the transfers in flight.
    struct TableCounts: Sendable, Equatable {
        var sockets: Int
        var ports: Int
        var connections: Int
        var tls: Int
        var active: Int
    }

    /// An order taken in by the loop, with its batch.
    private struct Submission {
        let specs: [TaskSpec]
        let profile: TaskProfile
        let count: Int
        let batch: Batch
        /// The engine-wide index of the first task, set when the loop takes the submission in.
        var firstIndex = 0
        var next = 0
    }

    init(options: ProbeOptions, progress: TransferProgress?, anchor: ClockAnchor, multi: CurlMulti,
         pipeStop: PipeStop) throws(CurlError) {
        self.options = options
        self.pipeStop = pipeStop
        self.progress = progress
        self.anchor = anchor
        self.multi = multi
        engineProfile = try TaskProfile(options: options, anchor: anchor)
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
            let found = profile(for: order.taskOptions)
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
            enqueue(Submission(specs: order.specs, profile: profile, count: order.count, batch: batch))
        case .cancel(let final):
            let before = cancelled
            cancelAll()
            if !final { cancelled = before }
        case .inspect(let answer):
            let counts = sockets.counts
            answer(TableCounts(sockets: counts.sockets, ports: counts.ports, connections: counts.connections, tls: counts.tls,
                               active: active.count))
        }
    }

    func pass() -> Int32 {
        startReadyWork()
        do {
            try multi.perform()
        } catch {
            failed(error)
        }
        uploads.watchAcknowledgements(active.values)
        if let progress { uploads.countUnacknowledged(active.values, into: progress) }
        sampleConnections()
        collectFinishedTransfers()
        enforceTimeouts()
        startReadyWork()
        return pollTimeoutMillis()
    }

    /// libcurl's perform or poll failed: every transfer in flight ends with the failure (retried as any error is).
    func failed(_ error: CurlError) {
        for ctx in Array(active.values) {
            ctx.engineFailure = error
            complete(ctx, result: nil)
        }
    }

    func stop() {
        cancelAll()
        spareHandles.removeAll()
    }

    // MARK: Tasks

    /// The most task options whose profiles are kept; past it the table starts again (tasks in flight hold theirs).
    static let profileLimit = 4096

    /// The profile of tasks with these options (the engine's for nil), built on first use; nil when libcurl could
    /// not make its header lists.
    private func profile(for taskOptions: TaskOptions?) -> TaskProfile? {
        guard let taskOptions else { return engineProfile }
        let key = ObjectIdentifier(taskOptions)
        if let known = profiles[key] { return known.profile }
        guard let made = try? TaskProfile(options: taskOptions.options, anchor: anchor) else { return nil }
        if profiles.count >= Self.profileLimit { profiles.removeAll() }
        profiles[key] = (taskOptions, made)
        return made
    }

    private func enqueue(_ submitted: Submission) {
        var submission = submitted
        submission.firstIndex = nextTaskIndex
        nextTaskIndex += submission.count
        if cancelled {
            for slot in 0..<submission.count { submission.batch.settle(slot: slot, record: nil) }
        } else {
            submissions.append(submission)
        }
    }

    /// Starts pending tasks up to the concurrency limit, and retries whose backoff has passed.
    private func startReadyWork() {
        if !waiting.isEmpty {
            let now = MonotonicClock.now()
            var stillWaiting: [TaskState] = []
            for task in waiting {
                let action = task.lifecycle.wake(at: now)
                if case .none = action { stillWaiting.append(task) } else { perform(action, for: task) }
            }
            waiting = stillWaiting
        }
        while tasksInFlight < max(1, options.concurrency), !submissions.isEmpty {
            let submission = submissions[0]
            let slot = submission.next
            let task = TaskState(index: submission.firstIndex + slot, spec: submission.specs[slot % submission.specs.count],
                                 batch: submission.batch, batchSlot: slot, profile: submission.profile)
            if slot + 1 == submission.count { submissions.removeFirst() } else { submissions[0].next = slot + 1 }
            tasksInFlight += 1
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
            waiting.append(task)
        case .finish(var record):
            record.responseBody = task.responseBody
            tasksInFlight -= 1
            task.batch.settle(slot: task.batchSlot, record: record)
        case .send, .abort:
            assertionFailure("task \(task.batchSlot): an action taken elsewhere reached perform")
        case .invalid(let why):
            assertionFailure("task \(task.batchSlot): \(why)")
        }
    }

    /// Takes a kernel snapshot of each transfer's connection whose last one is `tcpSampleInterval` old.
    private func sampleConnections() {
        guard !active.isEmpty else { return }
        let now = MonotonicClock.now()
        for ctx in active.values where ctx.tcpSocket != nil && ctx.task.profile.samplesTCP
            && now - ctx.tcpSampledAt >= ctx.task.profile.options.tcpSampleInterval * 1000 {
            ctx.sampleTCP(at: now)
        }
    }

    private func pollTimeoutMillis() -> Int32 {
        var now: Int64?
        var look: Int64 = 1000
        if uploads.awaitingAcknowledgement > 0 {
            let stamp = MonotonicClock.now()
            now = stamp
            look = uploads.millisToNextLook(at: stamp)
        }
        var next = Int64.max
        for ctx in active.values {
            let profile = ctx.task.profile
            if ctx.tcpSocket != nil, profile.samplesTCP {
                next = min(next, ctx.tcpSampledAt + profile.options.tcpSampleInterval * 1000)
            }
            if profile.rules.hasTimeouts { next = min(next, ctx.task.lifecycle.nextTimeout(activity: ctx.activity)) }
        }
        for task in waiting { next = min(next, task.lifecycle.wakeTime ?? .max) }
        guard next != .max else { return Int32(min(1000, look)) }
        let millis = (next - (now ?? MonotonicClock.now())) / 1_000_000 + 1
        return Int32(max(0, min(1000, look, millis)))
    }

    // MARK: Transactions

    /// Starts the transaction a task's lifecycle decided: parses its URL, lets the lifecycle say what it may carry,
    /// and adds its easy handle to the multi handle.
    private func startTransaction(_ task: TaskState, _ attempt: TaskLifecycle.Attempt) {
        let now = MonotonicClock.now()
        let options = task.profile.options
        let rules = task.profile.rules
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
            if let spare = spareHandles.popLast() { handle = spare } else { handle = try CurlEasy() }
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description))
            return
        }
        let ctx = TransferContext(
            handle: handle, task: task, kind: attempt.kind, target: target, method: attempt.method,
            body: attempt.sendsBody ? task.spec.body : .none, captureHeaders: options.includeResponseHeaders,
            followsRedirects: access.followsRedirects, tracksActivity: options.idleTimeout != nil,
            progress: progress, now: now)
        ctx.sockets = sockets
        ctx.sendBuffer = options.sendBuffer
        ctx.multipath = options.multipath
        ctx.readsTCP = options.readsKernelFacts
        ctx.host = options.readsKernelFacts ? host : nil
        ctx.keepsFacts = options.keepsTransactionFacts || attempt.sendsBody
        ctx.handshakeStartsTransfer = target.scheme == "http" && !rules.throughProxy
        ctx.multiplexes = options.multiplex && CurlPolicy.mayUseHTTP2(options.httpVersion, scheme: target.scheme)
        ctx.speaksPriorKnowledge = options.httpVersion == .http2PriorKnowledge
        ctx.response = ResponseWriter(task.spec.response)
        ctx.keepsCredentials = access.keepsCredentials
        ctx.refusesLinkLocal = access.refusesLinkLocal
        ctx.retryWait = attempt.retryWait
        ctx.bodyReader.stop = pipeStop
        ctx.bodyReader.waitLimit = options.idleTimeout
        let headers = attempt.sendsBody ? task.spec.headers : RedirectPolicy.bodilessHeaders(task.spec.headers)
        var settings = TransferSettings(
            url: target.text, method: ctx.method, body: ctx.body, bodyKind: attempt.bodyKind,
            uploadBufferSize: CurlPolicy.uploadBuffer(options.httpVersion, scheme: target.scheme),
            keepsCredentials: access.keepsCredentials, refusesLinkLocal: access.refusesLinkLocal,
            headers: RedirectPolicy.headers(headers, keepsCredentials: access.keepsCredentials),
            remainingMicros: access.remainingMicros, sendBuffer: options.sendBuffer,
            receiveBuffer: options.receiveBuffer, reportsIncomingTraffic: ctx.tracksActivity)
        var role: PriorKnowledgeRole?
        if options.httpVersion == .http2PriorKnowledge, options.reuseConnections, Libcurl.h2cReuseBroken {
            role = priorKnowledgeRoles.role(for: target.origin)
        }
        CurlPolicy.connection(options, scheme: target.scheme, role: role, brokenH2CReuse: Libcurl.h2cReuseBroken,
                              into: &settings)
        CurlPolicy.cookies(options, store: task.profile.cookies, keepsCredentials: access.keepsCredentials,
                           into: &settings)
        if let role { ctx.priorKnowledge = (role, priorKnowledgeRoles, settings) }
        do {
            try task.profile.configurator.configure(handle, for: settings, observer: ctx)
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
            return
        }
        active[ObjectIdentifier(handle)] = ctx
        if ctx.sendsBody { uploads.active += 1 }
        do {
            try multi.add(handle)
        } catch {
            active[ObjectIdentifier(handle)] = nil
            if ctx.sendsBody { uploads.active -= 1 }
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
        }
    }

    private func parsedTarget(_ url: String) throws(ProbeError) -> TargetURL {
        try targets.value(for: url) { (url) throws(ProbeError) in try TargetURL(url) }
    }

    /// Keeps a finished easy handle for the next transfer, up to the concurrency limit.
    private func recycle(_ handle: CurlEasy) {
        // The reset also drops the handle's observer, the context (which holds the handle in turn).
        handle.reset()
        if spareHandles.count < max(1, options.concurrency) { spareHandles.append(handle) }
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
            guard let ctx = active[ObjectIdentifier(easy)] else { continue }
            complete(ctx, result: error.map { .failure($0) } ?? .success(()))
        }
        finishedBuffer.removeAll(keepingCapacity: true)
    }

    /// Aborts transfers whose task passed its total timeout or that moved no byte for the idle timeout, and ends
    /// parked tasks past their deadline.
    private func enforceTimeouts() {
        let now = MonotonicClock.now()
        var expired: [(TransferContext, ErrorClass)] = []
        for ctx in active.values where ctx.task.profile.rules.hasTimeouts {
            if case .abort(let reason) = ctx.task.lifecycle.checkTimeouts(at: now, activity: ctx.activity) {
                expired.append((ctx, reason))
            }
        }
        for (ctx, reason) in expired {
            ctx.abortReason = reason
            complete(ctx, result: nil)
        }
        if !waiting.isEmpty {
            var stillWaiting: [TaskState] = []
            var overdue: [(TaskState, TaskLifecycle.Action)] = []
            for task in waiting {
                guard task.profile.rules.totalTimeout != nil else {
                    stillWaiting.append(task)
                    continue
                }
                let action = task.lifecycle.checkTimeouts(at: now)
                if case .none = action { stillWaiting.append(task) } else { overdue.append((task, action)) }
            }
            waiting = stillWaiting
            for (task, action) in overdue { perform(action, for: task) }
        }
    }

    private func cancelAll() {
        cancelled = true
        let now = MonotonicClock.now()
        for ctx in Array(active.values) {
            if case .abort(let reason) = ctx.task.lifecycle.cancel(at: now) { ctx.abortReason = reason }
            complete(ctx, result: nil)
        }
        let parked = waiting
        waiting.removeAll()
        for task in parked { perform(task.lifecycle.cancel(at: now), for: task) }
        for submission in submissions {
            for slot in submission.next..<submission.count { submission.batch.settle(slot: slot, record: nil) }
        }
        submissions.removeAll()
    }

    /// Ends a transfer: reads libcurl's facts, records the transaction, and hands its end to the task's lifecycle,
    /// which follows a redirect, parks for a retry or finishes the task. `result` is libcurl's (nil when the engine
    /// ended the transfer itself).
    private func complete(_ ctx: TransferContext, result: Result<Void, CurlError>?) {
        let easy = ctx.handle
        if case .failure? = result, easy.refusedNewConnection, reopen(ctx) { return }
        ctx.settleOpener()
        // The last snapshot before the connection may go back to the pool (or be closed by the removal).
        ctx.sampleTCP(last: true)
        sockets.detach(ctx)
        do {
            try multi.remove(easy)
        } catch {
            ctx.engineFailure = ctx.engineFailure ?? error
        }
        active[ObjectIdentifier(easy)] = nil
        if ctx.sendsBody { uploads.active -= 1 }
        if ctx.unacknowledgedCounted != 0 {
            // Ended: its bytes are acknowledged, or (failed) counted as wasted by whoever shows the progress.
            progress?.unacknowledged(changedBy: -ctx.unacknowledgedCounted)
            ctx.unacknowledgedCounted = 0
        }
        let end = MonotonicClock.now()
        let info: EasyInfo
        do {
            info = try EasyInfo(easy, addresses: ctx.localIP == nil || ctx.remoteIP == nil, receivedBody: options.compressed)
        } catch {
            info = EasyInfo()
            ctx.engineFailure = ctx.engineFailure ?? error
        }
        let metrics = transaction(ctx, info: info, result: result, end: end)
        let task = ctx.task
        for dead in ctx.deadAttempts {
            perform(task.lifecycle.resent(dead.metrics(anchor: anchor, throughProxy: task.profile.rules.throughProxy)),
                    for: task)
        }
        // Judged before anything connects there: the Location's origin, by libcurl's parser as every URL.
        let location = info.redirectURL.map { TaskLifecycle.Location(url: $0, origin: try? TargetURL.origin(of: $0)) }
        if let body = ctx.response.body { task.responseBody = body }
        ctx.release()
        recycle(easy)
        perform(task.lifecycle.ended(metrics, at: end, location: location, retryAfter: ctx.head.retryAfter,
                                     runCancelled: cancelled, random: &random), for: task)
    }

    /// Starts an h2c joiner again: libcurl wanted a new connection for it (the origin's connection was going away,
    /// or had no stream left), which the joiner refused before any packet left. It joins the connection another
    /// opener is making, or (at the latest on its `maxRejoins`th refusal) opens one itself. Its wait so far stays its
    /// queue. False when it could not start again (the transfer then ends with its failure).
    private func reopen(_ ctx: TransferContext) -> Bool {
        guard let joined = ctx.priorKnowledge, joined.role == .joins else { return false }
        let easy = ctx.handle
        var settings = joined.settings
        ctx.rejoins += 1
        let role = priorKnowledgeRoles.rejoinRole(for: ctx.target.origin, mayJoin: ctx.rejoins < Self.maxRejoins)
        CurlPolicy.connection(ctx.task.profile.options, scheme: ctx.target.scheme, role: role,
                              brokenH2CReuse: Libcurl.h2cReuseBroken, into: &settings)
        ctx.priorKnowledge = (role, joined.roles, settings)
        do throws(CurlError) {
            try multi.remove(easy)
            easy.reset()
            try ctx.task.profile.configurator.configure(easy, for: settings, observer: ctx)
            try multi.add(easy)
            ctx.restartedInLibcurl()
            return true
        } catch {
            ctx.engineFailure = error
            return false
        }
    }

    /// How often an h2c joiner may be refused a new connection before it opens one itself.
    static let maxRejoins = 3

    /// The transaction a finished transfer records: what it saw, read from its context and libcurl, assembled by
    /// `TransferObservation` (attempts libcurl gave up on are the context's `deadAttempts`). The TLS facts of a
    /// connection are kept by its number for the transfers that reuse it.
    private func transaction(_ ctx: TransferContext, info: EasyInfo, result: Result<Void, CurlError>?, end: Int64)
        -> TransactionMetrics {
        ctx.settleTLSFacts(reused: info.numConnects == 0)
        let seen = ctx.observation(info: info, numConnects: info.numConnects, error: transferError(ctx, result: result),
                                   end: end)
        return seen.metrics(anchor: anchor, throughProxy: ctx.task.profile.rules.throughProxy)
    }

    /// The transfer's failure: a libcurl call about it that failed (class other), the reason the engine aborted it,
    /// or libcurl's code with the transfer's own refusal, local failure or error text.
    private func transferError(_ ctx: TransferContext, result: Result<Void, CurlError>?) -> TransferError? {
        if let failure = ctx.engineFailure {
            return TransferError(errorClass: .other, message: failure.description)
        }
        if let reason = ctx.abortReason { return ctx.task.profile.rules.abortError(reason) }
        guard case .failure(let error)? = result else { return nil }
        let code = Int(error.code)
        if let refusal = ctx.refusal {
            return TransferError(errorClass: .protocol, curlCode: code, message: refusal)
        }
        if let local = ctx.localFailure {
            return TransferError(errorClass: .file, curlCode: code, message: local)
        }
        var text = error.detail ?? error.message
        let errorClass = CurlErrorMap.classify(code: code, connected: ctx.connectionReady != nil, message: text)
        if let doh = ctx.task.profile.options.dohURL, ctx.connectionReady == nil, let reason = ctx.dohFailures.first {
            // libcurl says only that the name could not be resolved; the DoH request's own failure says why.
            text = "DNS over HTTPS via \(Redactor.url(doh)) failed: \(reason) (\(text))"
        }
        return TransferError(errorClass: errorClass, curlCode: code, message: text)
    }
}
