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
    /// The redirect, retry and timeout rules every task's lifecycle follows.
    private let rules: LifecycleRules
    private let headerLists: RequestHeaderLists

    /// Submitted tasks not started yet, batch by batch, oldest first (a TaskState is made when a task starts).
    private var submissions: [Submission] = []
    private var active: [ObjectIdentifier: TransferContext] = [:]
    private var waiting: [TaskState] = []
    private var tasksInFlight = 0
    private var cancelled = false
    private var nextTaskIndex = 0
    /// Uploads seen waiting for the peer to acknowledge their body at the last look (see watchBodyAcknowledgements).
    private var awaitingAcknowledgement = 0
    /// The per-connection tables: open sockets and the transfers on each (libcurl's socket callbacks fill it), and
    /// the TLS facts of each connection for the transactions that reuse it; pruned as libcurl closes connections.
    private let sockets = ConnectionSockets()
    /// Transfers in flight that send a body (only these are watched for the acknowledgement).
    private var uploadsActive = 0
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
        case cancel
        case inspect(@Sendable (TableCounts) -> Void)
    }

    /// Tasks submitted together: `count` of them, task i running `specs[i % specs.count]`.
    struct Order: Sendable {
        let specs: [TaskSpec]
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
        let count: Int
        let batch: Batch
        /// The engine-wide index of the first task, set when the loop takes the submission in.
        var firstIndex = 0
        var next = 0
    }

    init(options: ProbeOptions, progress: TransferProgress?, anchor: ClockAnchor, multi: CurlMulti) throws(CurlError) {
        self.options = options
        self.progress = progress
        self.anchor = anchor
        self.multi = multi
        rules = LifecycleRules(options: options, anchor: anchor)
        headerLists = try RequestHeaderLists(options: options)
        let sockets = sockets
        multi.onSocketClose = { socket in sockets.closing(socket, at: MonotonicClock.now()) }
    }

    // MARK: CurlLoopDriver

    func receive(_ command: Command) {
        switch command {
        case .submit(let order):
            enqueue(Submission(specs: order.specs, count: order.count,
                               batch: Batch(count: order.count, keepsRecords: order.keepsRecords,
                                            onTaskFinished: order.onTaskFinished, completion: order.completion)))
        case .cancel:
            cancelAll()
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
        watchBodyAcknowledgements()
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
                                 batch: submission.batch, batchSlot: slot, rules: rules)
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

    /// Uploads whose body is all written: the moment the socket's send queue empties (the peer acknowledged every
    /// byte) ends their request, as each transfer's `AcknowledgementWatch` decides from the looks. Looked at after
    /// each perform, and every `acknowledgementPollMillis` while any waits.
    private func watchBodyAcknowledgements() {
        guard uploadsActive > 0 else {
            awaitingAcknowledgement = 0
            return
        }
        var waiting = 0
        var now: Int64?
        for ctx in active.values where ctx.sendsBody && !ctx.acknowledgement.isSettled {
            guard ctx.acknowledgement.look(responseStart: ctx.responseStart, bodyReadEnd: ctx.bodyReadEnd) == .readUploaded,
                  let readEnd = ctx.bodyReadEnd else { continue }
            // A count libcurl cannot give (CURLINFO_SIZE_UPLOAD_T failing) counts as a body not all written yet.
            let complete = (try? ctx.handle.uploadedBytes()).map { $0 >= ctx.body.size } ?? false
            // libcurl 7.88 names a transfer's socket (CURLINFO_ACTIVESOCKET) only after it ends: the socket table
            // found it by its local port when the connection was ready.
            var step = ctx.acknowledgement.uploaded(complete: complete, socketKnown: ctx.tcpSocket != nil,
                                                    bodyReadEnd: readEnd)
            if step == .readSendQueue, let socket = ctx.tcpSocket {
                let queued = SocketQuery.unacknowledgedBytes(socket)
                var stamp: Int64 = 0
                if queued != nil {
                    stamp = now ?? MonotonicClock.now()
                    now = stamp
                }
                step = ctx.acknowledgement.sendQueue(queued, at: stamp, bodyReadEnd: readEnd)
            }
            if step == .waiting { waiting += 1 }
        }
        awaitingAcknowledgement = waiting
    }

    /// How often the send queues of uploads waiting for their acknowledgement are looked at: the resolution of
    /// their request end.
    static let acknowledgementPollMillis: Int32 = 2

    /// Takes a kernel snapshot of each transfer's connection whose last one is `tcpSampleInterval` old.
    private func sampleConnections() {
        guard options.readsKernelFacts, options.tcpSampleInterval > 0, !active.isEmpty else { return }
        let now = MonotonicClock.now()
        let interval = options.tcpSampleInterval * 1000
        for ctx in active.values where ctx.tcpSocket != nil && now - ctx.tcpSampledAt >= interval {
            ctx.sampleTCP(at: now)
        }
    }

    private func pollTimeoutMillis() -> Int32 {
        if awaitingAcknowledgement > 0 { return Self.acknowledgementPollMillis }
        var next = Int64.max
        if options.readsKernelFacts, options.tcpSampleInterval > 0 {
            for ctx in active.values where ctx.tcpSocket != nil {
                next = min(next, ctx.tcpSampledAt + options.tcpSampleInterval * 1000)
            }
        }
        for task in waiting { next = min(next, task.lifecycle.wakeTime ?? .max) }
        if rules.hasTimeouts {
            for ctx in active.values { next = min(next, ctx.task.lifecycle.nextTimeout(activity: ctx.activity)) }
        }
        guard next != .max else { return 1000 }
        let millis = (next - MonotonicClock.now()) / 1_000_000 + 1
        return Int32(max(0, min(1000, millis)))
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
        ctx.readsTCP = options.readsKernelFacts
        ctx.handshakeStartsTransfer = target.scheme == "http" && !rules.throughProxy
        ctx.multiplexes = options.multiplex && EasyConfigurator.mayUseHTTP2(options.httpVersion, scheme: target.scheme)
        ctx.priorKnowledge = options.httpVersion == .http2PriorKnowledge
        ctx.response = ResponseWriter(task.spec.response)
        ctx.keepsCredentials = access.keepsCredentials
        ctx.refusesLinkLocal = access.refusesLinkLocal
        ctx.retryWait = attempt.retryWait
        let settings = TransferSettings(
            url: target.text, scheme: target.scheme, method: ctx.method, body: ctx.body,
            keepsCredentials: access.keepsCredentials, refusesLinkLocal: access.refusesLinkLocal,
            headers: task.spec.headers, remainingMicros: access.remainingMicros, sendBuffer: options.sendBuffer,
            reportsIncomingTraffic: ctx.tracksActivity)
        do {
            try EasyConfigurator(options: options, headers: headerLists).configure(handle, for: settings, observer: ctx)
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
            return
        }
        active[ObjectIdentifier(handle)] = ctx
        if ctx.sendsBody { uploadsActive += 1 }
        do {
            try multi.add(handle)
        } catch {
            active[ObjectIdentifier(handle)] = nil
            if ctx.sendsBody { uploadsActive -= 1 }
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
        guard rules.hasTimeouts else { return }
        let now = MonotonicClock.now()
        var expired: [(TransferContext, ErrorClass)] = []
        for ctx in active.values {
            if case .abort(let reason) = ctx.task.lifecycle.checkTimeouts(at: now, activity: ctx.activity) {
                expired.append((ctx, reason))
            }
        }
        for (ctx, reason) in expired {
            ctx.abortReason = reason
            complete(ctx, result: nil)
        }
        if rules.totalTimeout != nil, !waiting.isEmpty {
            var stillWaiting: [TaskState] = []
            var overdue: [(TaskState, TaskLifecycle.Action)] = []
            for task in waiting {
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
        // The last snapshot before the connection may go back to the pool (or be closed by the removal).
        ctx.sampleTCP(at: MonotonicClock.now(), last: true)
        sockets.detach(ctx)
        do {
            try multi.remove(easy)
        } catch {
            ctx.engineFailure = ctx.engineFailure ?? error
        }
        active[ObjectIdentifier(easy)] = nil
        if ctx.sendsBody { uploadsActive -= 1 }
        let end = MonotonicClock.now()
        let info: EasyInfo
        do {
            info = try EasyInfo(easy, addresses: ctx.localIP == nil || ctx.remoteIP == nil)
        } catch {
            info = EasyInfo()
            ctx.engineFailure = ctx.engineFailure ?? error
        }
        let metrics = transaction(ctx, info: info, result: result, end: end)
        // Judged before anything connects there: the Location's origin, by libcurl's parser as every URL.
        let location = info.redirectURL.map { TaskLifecycle.Location(url: $0, origin: try? TargetURL.origin(of: $0)) }
        let task = ctx.task
        if let body = ctx.response.body { task.responseBody = body }
        ctx.release()
        recycle(easy)
        perform(task.lifecycle.ended(metrics, at: end, location: location, retryAfter: ctx.retryAfter,
                                     runCancelled: cancelled, random: &random), for: task)
    }

    /// The transaction a finished transfer records: what it saw, read from its context and libcurl, assembled by
    /// `TransferObservation`. The TLS facts of a connection are kept by its number for the transfers that reuse it.
    private func transaction(_ ctx: TransferContext, info: EasyInfo, result: Result<Void, CurlError>?, end: Int64)
        -> TransactionMetrics {
        if let id = ctx.connectionId {
            if ctx.tlsVersion != nil || ctx.alpn != nil {
                sockets.remember(tls: (ctx.tlsVersion, ctx.tlsCipher, ctx.alpn), connection: id,
                                 socketKnown: ctx.connectionSocketKnown)
            } else if ctx.connectionReady != nil, info.numConnects == 0, let known = sockets.tls(connection: id) {
                ctx.tlsVersion = known.version
                ctx.tlsCipher = known.cipher
                ctx.alpn = known.alpn
            }
        }
        var facts = ctx.tcp.finish()
        facts?.shared = ctx.tcpShared
        facts?.handshakeRTT = ctx.handshakeRTT
        let seen = TransferObservation(
            kind: ctx.kind, url: ctx.target.text, method: ctx.method, hostIsIPLiteral: ctx.target.hostIsIPLiteral,
            usesTLS: ctx.target.scheme == "https", fetchStart: ctx.fetchStart, connectionReady: ctx.connectionReady,
            requestEnd: ctx.requestEnd, responseStart: ctx.responseStart, headerOutAt: ctx.headerOutAt,
            firstBodyOutAt: ctx.firstBodyOutAt, expectSent: ctx.expectSent, end: end, curlTimers: info.timers,
            numConnects: info.numConnects, protocolName: info.protocolName, requestHeaderBytes: info.requestSize,
            responseHeaderBytes: info.headerSize, connectionId: ctx.connectionId,
            localAddress: ctx.localIP ?? info.localIP, localPort: ctx.localPort ?? info.localPort,
            remoteAddress: ctx.remoteIP ?? info.primaryIP, remotePort: ctx.remotePort ?? info.primaryPort,
            tlsVersion: ctx.tlsVersion, tlsCipher: ctx.tlsCipher, alpn: ctx.alpn, status: ctx.status,
            statusText: ctx.statusText, contentType: ctx.contentType,
            responseHeaders: ctx.captureHeaders ? ctx.headers : nil, requestBodyBytes: ctx.requestBodyBytes,
            responseBodyBytes: ctx.responseBodyBytes, retryWait: ctx.retryWait,
            error: transferError(ctx, result: result), tcp: facts, readsTCP: ctx.readsTCP,
            connectionTotals: ctx.tcp.lastSnapshot.map(TCPTotals.init))
        return seen.metrics(anchor: anchor, throughProxy: rules.throughProxy)
    }

    /// The transfer's failure: a libcurl call about it that failed (class other), the reason the engine aborted it,
    /// or libcurl's code with the transfer's own refusal, local failure or error text.
    private func transferError(_ ctx: TransferContext, result: Result<Void, CurlError>?) -> TransferError? {
        if let failure = ctx.engineFailure {
            return TransferError(errorClass: .other, message: failure.description)
        }
        if let reason = ctx.abortReason { return rules.abortError(reason) }
        guard case .failure(let error)? = result else { return nil }
        let code = Int(error.code)
        if let refusal = ctx.refusal {
            return TransferError(errorClass: .protocol, curlCode: code, message: refusal)
        }
        if let local = ctx.localFailure {
            return TransferError(errorClass: .file, curlCode: code, message: local)
        }
        let text = error.detail ?? error.message
        let errorClass = CurlErrorMap.classify(code: code, connected: ctx.connectionReady != nil, message: text)
        return TransferError(errorClass: errorClass, curlCode: code, message: text)
    }
}
