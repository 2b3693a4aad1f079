import Foundation
import WirelensCore
import WirelensCurl

/// Runs HTTP transfers through one libcurl multi handle owned by a single loop thread.
///
/// The rest of the code talks to it with async/await (`run(_:)`) and `cancel()`. Redirects and retries are
/// followed by the engine itself, so each hop and each attempt is its own transaction. The engine holds only the
/// loop's inbox (`CurlLoop`): everything the transfers touch lives in an `EngineLoop` made on the loop thread and
/// unreachable from any other. `Engine.with(options:)` scopes an engine and shuts it down explicitly; an engine
/// released without `shutdown()` asks its loop to end and returns at once (its `deinit` never waits).
public final class Engine: Sendable {
    public let options: ProbeOptions
    /// The clock pairing used to turn the engine's monotonic stamps into wall-clock time.
    public let anchor: ClockAnchor
    /// Byte counters for a progress display, when one was asked for.
    public let progress: TransferProgress?

    private let loop: CurlLoop<EngineLoop.Command>

    /// Makes the multi handle with the run's connection limits on a new loop thread.
    ///
    /// - Parameter progress: counters the transfers bump as bytes move, for a progress display (nil: none).
    public init(options: ProbeOptions, progress: TransferProgress? = nil) throws(ProbeError) {
        self.progress = progress
        self.options = options
        // The CLI and the check configuration refuse these already; an engine made otherwise refuses them too
        // rather than let libcurl send a header that splits the request.
        for field in options.headers + [HeaderField(name: "User-Agent", value: options.userAgent)] {
            if let problem = RequestTextCheck.problem(name: field.name, value: field.value) {
                throw ProbeError.engine(problem)
            }
        }
        let anchor = MonotonicClock.anchor()
        self.anchor = anchor
        let settings = CurlMulti.Settings(
            maxHostConnections: options.maxHostConnections, maxTotalConnections: options.maxConnections,
            multiplex: options.multiplex, connectionCache: max(options.concurrency, options.maxConnections ?? 0, 8))
        do {
            loop = try CurlLoop.start(name: "wirelens-engine", settings: settings) { multi in
                try EngineLoop(options: options, progress: progress, anchor: anchor, multi: multi)
            }
        } catch let error as ProbeError {
            throw error
        } catch let error as CurlError {
            throw ProbeError.engine(error.description)
        } catch {
            throw ProbeError.engine("\(error)")
        }
    }

    deinit {
        loop.requestShutdown()
    }

    /// Runs `body` with a new engine and shuts the engine down (transfers in flight cancelled, the loop thread ended
    /// and its handles freed) when the body returns or throws.
    public static func with<Result>(options: ProbeOptions, progress: TransferProgress? = nil,
                                    _ body: (Engine) async throws -> Result) async throws -> Result {
        let engine = try Engine(options: options, progress: progress)
        do {
            let result = try await body(engine)
            await engine.shutdown()
            return result
        } catch {
            await engine.shutdown()
            throw error
        }
    }

    /// Ends the loop: transfers in flight end as cancelled, runs waiting get what was gathered, and this returns once
    /// the loop thread has freed its handles. The engine takes no work afterwards.
    public func shutdown() async {
        await loop.shutdown()
    }

    /// Runs the tasks, at most `options.concurrency` at a time, and returns their records in task order.
    ///
    /// The specs run `rounds` times over, in order (task i is `specs[i % specs.count]`), without a spec per task
    /// being made up front. After `cancel()`, in-flight tasks end as cancelled, tasks not yet started are
    /// dropped, and this returns what was gathered.
    ///
    /// - Parameters:
    ///   - onTaskFinished: called on the engine's loop thread with each task as it ends, in the order they end.
    ///   - keepsRecords: false returns no records: each went to `onTaskFinished` only, so a run of any length
    ///     holds only the tasks in flight.
    public func run(_ specs: [TaskSpec], rounds: Int = 1, keepsRecords: Bool = true,
                    onTaskFinished: (@Sendable (TaskRecord) -> Void)? = nil) async -> [TaskRecord] {
        let count = specs.count * max(0, rounds)
        guard count > 0 else { return [] }
        return await withCheckedContinuation { continuation in
            let order = EngineLoop.Order(specs: specs, count: count, keepsRecords: keepsRecords,
                                         onTaskFinished: onTaskFinished) { continuation.resume(returning: $0) }
            // An engine shut down takes no work: the run gets no records.
            if !loop.post(.submit(order)) { continuation.resume(returning: []) }
        }
    }

    /// Stops the run: transfers in flight end as cancelled and no new task starts. Safe from any thread.
    public func cancel() {
        loop.post(.cancel)
    }

    /// The sizes of the loop's per-connection tables, read on the loop thread (for tests that hold them bounded).
    func tableCounts() async -> EngineLoop.TableCounts {
        await withCheckedContinuation { continuation in
            if !loop.post(.inspect { continuation.resume(returning: $0) }) {
                continuation.resume(returning: EngineLoop.TableCounts(sockets: 0, ports: 0, connections: 0, tls: 0, active: 0))
            }
        }
    }
}

/// The engine's loop: the multi handle, the transfers in flight, the tasks waiting and the per-connection tables.
///
/// Made on the loop thread by `CurlLoop.start` and owned by that thread alone (`CurlLoopDriver`): no other thread
/// holds a reference, so none of this needs a lock.
final class EngineLoop: CurlLoopDriver {
    let options: ProbeOptions
    let anchor: ClockAnchor
    let progress: TransferProgress?
    let multi: CurlMulti
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
                if let due = task.retryDue, due <= now {
                    task.retryDue = nil
                    startTransaction(task, kind: .retry)
                } else {
                    stillWaiting.append(task)
                }
            }
            waiting = stillWaiting
        }
        while tasksInFlight < max(1, options.concurrency), !submissions.isEmpty {
            let submission = submissions[0]
            let slot = submission.next
            let task = TaskState(index: submission.firstIndex + slot, spec: submission.specs[slot % submission.specs.count],
                                 batch: submission.batch, batchSlot: slot)
            if slot + 1 == submission.count { submissions.removeFirst() } else { submissions[0].next = slot + 1 }
            tasksInFlight += 1
            task.started = MonotonicClock.now()
            if let total = options.totalTimeout { task.deadline = task.started + total * 1000 }
            startTransaction(task, kind: .initial)
        }
    }

    /// Uploads whose body is all written: the moment the socket's send queue empties (the peer acknowledged every
    /// byte) ends their request. Looked at after each perform, and every `acknowledgementPollMillis` while any waits.
    private func watchBodyAcknowledgements() {
        guard uploadsActive > 0 else {
            awaitingAcknowledgement = 0
            return
        }
        var waiting = 0
        var now: Int64?
        for ctx in active.values where ctx.bodyAcknowledged == nil {
            if let response = ctx.responseStart {
                // The response began between two looks: the body was acknowledged in between. Its first byte
                // bounds the moment when the last look was recent; otherwise the last look is all that is known.
                if let queued = ctx.bodyStillQueuedAt {
                    ctx.bodyAcknowledged = response - queued <= Self.acknowledgementSlack ? response : queued
                }
                continue
            }
            guard ctx.awaitsBodyAcknowledgement else { continue }
            // A count libcurl cannot give (CURLINFO_SIZE_UPLOAD_T failing) counts as a body not all written yet.
            guard let uploaded = try? ctx.handle.uploadedBytes(), uploaded >= ctx.body.size else {
                waiting += 1
                continue
            }
            // libcurl 7.88 names a transfer's socket (CURLINFO_ACTIVESOCKET) only after it ends: the socket table
            // found it by its local port when the connection was ready.
            guard let socket = ctx.tcpSocket else {
                ctx.bodyAcknowledged = ctx.bodyReadEnd
                continue
            }
            let queued = SocketQuery.unacknowledgedBytes(socket) ?? -1
            if queued < 0 {
                // The socket cannot tell: keep the written end as the request's end.
                ctx.bodyAcknowledged = ctx.bodyReadEnd
            } else if queued == 0 {
                let stamp = now ?? MonotonicClock.now()
                now = stamp
                ctx.bodyAcknowledged = stamp
            } else {
                let stamp = now ?? MonotonicClock.now()
                now = stamp
                ctx.bodyStillQueuedAt = stamp
                waiting += 1
            }
        }
        awaitingAcknowledgement = waiting
    }

    /// How often the send queues of uploads waiting for their acknowledgement are looked at: the resolution of
    /// their request end.
    static let acknowledgementPollMillis: Int32 = 2
    /// The largest gap (ns) between the last look that saw the body still queued and the response's first byte for
    /// which the response's first byte is taken as the acknowledgement (a few poll periods).
    static let acknowledgementSlack: Int64 = 5_000_000

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
        for task in waiting { next = min(next, task.retryDue ?? .max) }
        if options.idleTimeout != nil || options.totalTimeout != nil {
            for ctx in active.values {
                next = min(next, ctx.task.deadline)
                if let idle = options.idleTimeout, ctx.connectionReady != nil {
                    next = min(next, ctx.lastActivity + idle * 1000)
                }
            }
        }
        guard next != .max else { return 1000 }
        let millis = (next - MonotonicClock.now()) / 1_000_000 + 1
        return Int32(max(0, min(1000, millis)))
    }

    // MARK: Transactions

    private func startTransaction(_ task: TaskState, kind: TransactionKind) {
        let now = MonotonicClock.now()
        var target: TargetURL
        let keepsCredentials: Bool
        do {
            target = try parsedTarget(task.url)
            if task.origin == nil {
                task.origin = target.origin
                task.userInfo = target.userInfo
            }
            // Credentials (secret headers, user info) go only to the task's own origin, unless hops are trusted;
            // a hop there without user info of its own carries the task's, as curl's does.
            keepsCredentials = RedirectPolicy.keepsCredentials(first: task.origin ?? target.origin, next: target.origin,
                                                               trusted: options.trustedRedirects)
            let userInfo = keepsCredentials ? target.userInfo ?? task.userInfo : nil
            if userInfo != target.userInfo { target = try target.replacingUserInfo(userInfo) }
        } catch {
            failBeforeStart(task, kind: kind, at: now, error: TransferError(errorClass: .protocol, message: error.description))
            return
        }
        let handle: CurlEasy
        do throws(CurlError) {
            if let spare = spareHandles.popLast() { handle = spare } else { handle = try CurlEasy() }
        } catch {
            failBeforeStart(task, kind: kind, at: now, error: TransferError(errorClass: .other, message: error.description))
            return
        }
        let ctx = TransferContext(
            handle: handle, task: task, kind: kind, target: target, method: task.method,
            body: task.sendsBody ? task.spec.body : .none, captureHeaders: options.includeResponseHeaders,
            followsRedirects: task.redirects < options.maxRedirects, tracksActivity: options.idleTimeout != nil,
            progress: progress, now: now)
        ctx.sockets = sockets
        ctx.sendBuffer = options.sendBuffer
        ctx.readsTCP = options.readsKernelFacts
        ctx.outputPath = task.spec.outputPath
        ctx.resumeOutput = task.spec.resumeOutput
        ctx.keepsCredentials = keepsCredentials
        ctx.refusesLinkLocal = !options.allowsLinkLocalRedirects && target.origin != task.origin
        if kind == .retry {
            ctx.retryWait = task.retryWait
            task.retryWait = nil
        }
        let settings = TransferSettings(
            url: target.text, scheme: target.scheme, method: ctx.method, body: ctx.body,
            keepsCredentials: keepsCredentials, refusesLinkLocal: ctx.refusesLinkLocal, headers: task.spec.headers,
            remainingMicros: remainingMicros(task, now: now), sendBuffer: options.sendBuffer,
            reportsIncomingTraffic: ctx.tracksActivity)
        do {
            try EasyConfigurator(options: options, headers: headerLists).configure(handle, for: settings, observer: ctx)
        } catch {
            failBeforeStart(task, kind: kind, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
            return
        }
        active[ObjectIdentifier(handle)] = ctx
        if ctx.body != .none { uploadsActive += 1 }
        do {
            try multi.add(handle)
        } catch {
            active[ObjectIdentifier(handle)] = nil
            if ctx.body != .none { uploadsActive -= 1 }
            failBeforeStart(task, kind: kind, at: now, error: TransferError(errorClass: .other, message: error.description),
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

    private func remainingMicros(_ task: TaskState, now: Int64) -> Int64? {
        guard task.deadline != .max else { return nil }
        return max(1000, (task.deadline - now) / 1000)
    }

    /// Ends a task whose transaction could not start: records the failed transaction and finishes the task.
    /// A context that was already made is released and its easy handle freed.
    private func failBeforeStart(_ task: TaskState, kind: TransactionKind, at now: Int64, error: TransferError,
                                 discarding ctx: TransferContext? = nil) {
        if let ctx {
            ctx.release()
            ctx.handle.reset()
        }
        let wall = anchor.wallMicros(ofMonotonic: now)
        var m = TransactionMetrics(kind: kind, url: task.url, method: task.method,
                                   timeline: Timeline(fetchStart: wall), phases: Phases(total: 0),
                                   reusedConnection: false, proxyConnection: options.proxy != nil,
                                   curlTimers: CurlTimers())
        m.error = error
        task.transactions.append(m)
        finishTask(task)
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

    /// Aborts transfers whose task passed its total timeout or that moved no byte for the idle timeout.
    private func enforceTimeouts() {
        guard options.idleTimeout != nil || options.totalTimeout != nil else { return }
        let now = MonotonicClock.now()
        var expired: [(TransferContext, ErrorClass)] = []
        for ctx in active.values {
            if now >= ctx.task.deadline {
                expired.append((ctx, .totalTimeout))
            } else if let idle = options.idleTimeout, ctx.connectionReady != nil, now - ctx.lastActivity >= idle * 1000 {
                expired.append((ctx, .idleTimeout))
            }
        }
        for (ctx, reason) in expired {
            ctx.abortReason = reason
            complete(ctx, result: nil)
        }
        if options.totalTimeout != nil, !waiting.isEmpty {
            let overdue = waiting.filter { now >= $0.deadline }
            waiting.removeAll { now >= $0.deadline }
            for task in overdue { finishTask(task) }
        }
    }

    private func cancelAll() {
        cancelled = true
        for ctx in Array(active.values) {
            ctx.abortReason = .cancelled
            complete(ctx, result: nil)
        }
        let parked = waiting
        waiting.removeAll()
        for task in parked { finishTask(task) }
        for submission in submissions {
            for slot in submission.next..<submission.count { submission.batch.settle(slot: slot, record: nil) }
        }
        submissions.removeAll()
    }

    /// Ends a transfer: reads libcurl's facts, records the transaction, then follows, retries or finishes the task.
    /// `result` is libcurl's (nil when the engine ended the transfer itself).
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
        if ctx.body != .none { uploadsActive -= 1 }
        let end = MonotonicClock.now()
        let info: EasyInfo
        do {
            info = try EasyInfo(easy, addresses: ctx.localIP == nil || ctx.remoteIP == nil)
        } catch {
            info = EasyInfo()
            ctx.engineFailure = ctx.engineFailure ?? error
        }
        let metrics = transaction(ctx, info: info, result: result, end: end)
        let redirectURL = info.redirectURL
        ctx.release()
        recycle(easy)

        let task = ctx.task
        task.lastEnd = end
        // What the decisions below need, read before the record moves into the task (a copy would retain its strings).
        let errorClass = metrics.error?.errorClass
        let statusCode = metrics.statusCode
        task.transactions.append(metrics)
        if cancelled || errorClass == .cancelled {
            finishTask(task)
            return
        }
        if errorClass == nil, let status = statusCode, (300..<400).contains(status), options.maxRedirects > 0,
           let hop = RedirectPolicy.next(status: status, method: task.method, hasLocation: redirectURL != nil),
           let next = redirectURL {
            guard task.redirects < options.maxRedirects else {
                task.transactions[task.transactions.count - 1].error = TransferError(
                    errorClass: .protocol, message: "more than \(options.maxRedirects) redirects")
                finishTask(task)
                return
            }
            // Refused before any transaction starts, so nothing connects to where the Location points.
            if let origin = try? TargetURL.origin(of: next),
               let refusal = RedirectPolicy.refusal(next: origin, first: task.origin ?? origin,
                                                    allowsLinkLocal: options.allowsLinkLocalRedirects) {
                // The message names the Location (redacted as every message is), so the reader sees where it pointed.
                task.transactions[task.transactions.count - 1].error = TransferError(
                    errorClass: .protocol, message: "\(refusal.description) (Location: \(next))")
                finishTask(task)
                return
            }
            task.redirects += 1
            task.url = next
            task.method = hop.method
            task.sendsBody = task.sendsBody && hop.keepsBody
            startTransaction(task, kind: .redirect)
            return
        }
        guard options.retry.maxRetries > task.retries else {
            finishTask(task)
            return
        }
        let retryAfter = ctx.retryAfter.flatMap {
            RetryPolicy.parseRetryAfter($0, nowMicros: anchor.wallMicros(ofMonotonic: end))
        }
        if let delay = options.retry.delay(retry: task.retries + 1, error: errorClass,
                                            status: statusCode, retryAfter: retryAfter,
                                            unit: Double.random(in: 0..<1, using: &random)),
           delay < (task.deadline - end) / 1000 {  // the wait ends before the deadline (and end + delay fits)
            task.retries += 1
            task.retryDue = end + delay * 1000
            task.retryWait = (delay, retryAfter)
            waiting.append(task)
            return
        }
        finishTask(task)
    }

    private func transaction(_ ctx: TransferContext, info: EasyInfo, result: Result<Void, CurlError>?, end: Int64)
        -> TransactionMetrics {
        let reused = ctx.connectionReady != nil && info.numConnects == 0
        let raw = RawTimings(
            fetchStart: ctx.fetchStart, connectionReady: ctx.connectionReady, requestEnd: ctx.requestEnd,
            responseStart: ctx.responseStart, end: end, curl: info.timers, reusedConnection: reused,
            hostIsIPLiteral: ctx.target.hostIsIPLiteral, usesTLS: ctx.target.scheme == "https")
        let computed = PhaseMath.compute(raw, anchor: anchor)
        var m = TransactionMetrics(kind: ctx.kind, url: ctx.target.text, method: ctx.method,
                                   timeline: computed.timeline, phases: computed.phases, reusedConnection: reused,
                                   proxyConnection: options.proxy != nil, curlTimers: info.timers)
        m.networkProtocolName = info.protocolName
        m.connectionId = ctx.connectionId
        m.localAddress = ctx.localIP ?? info.localIP
        m.localPort = ctx.localPort ?? info.localPort
        m.remoteAddress = ctx.remoteIP ?? info.primaryIP
        m.remotePort = ctx.remotePort ?? info.primaryPort
        if let id = ctx.connectionId {
            if ctx.tlsVersion != nil || ctx.alpn != nil {
                sockets.remember(tls: (ctx.tlsVersion, ctx.tlsCipher, ctx.alpn), connection: id,
                                 socketKnown: ctx.connectionSocketKnown)
            } else if reused, let known = sockets.tls(connection: id) {
                ctx.tlsVersion = known.version
                ctx.tlsCipher = known.cipher
                ctx.alpn = known.alpn
            }
        }
        m.tlsVersion = ctx.tlsVersion
        m.tlsCipher = ctx.tlsCipher
        m.alpn = ctx.alpn
        m.statusCode = ctx.responseStart != nil ? ctx.status : nil
        m.requestHeaderBytes = info.requestSize
        m.requestBodyBytes = ctx.requestBodyBytes
        m.responseHeaderBytes = info.headerSize
        m.responseBodyBytes = ctx.responseBodyBytes
        if ctx.expectSent, let sent = ctx.headerOutAt {
            let bodyStart = ctx.firstBodyOutAt ?? ctx.responseStart ?? end
            m.expectContinueWait = max(0, bodyStart - sent) / 1000
        }
        if m.statusCode != nil {
            m.statusText = ctx.statusText
            m.contentType = ctx.contentType
        }
        if ctx.captureHeaders { m.responseHeaders = ctx.headers }
        if let wait = ctx.retryWait {
            m.retryWait = wait.planned
            m.retryAfter = wait.requested
        }
        m.error = transferError(ctx, result: result)
        var facts = ctx.tcp.finish()
        facts?.shared = ctx.tcpShared
        facts?.handshakeRTT = ctx.handshakeRTT
        m.tcp = facts
        m.diagnosis = Diagnosis.of(.init(
            phases: m.phases, requestBodyBytes: m.requestBodyBytes, responseBodyBytes: m.responseBodyBytes, tcp: facts,
            missingReason: Self.missingFactsReason(ctx), throughProxy: options.proxy != nil))
        return m
    }

    /// Why a transfer has no kernel facts (said in its `unknown` diagnosis).
    private static func missingFactsReason(_ ctx: TransferContext) -> String {
        #if os(Linux)
        if !ctx.readsTCP { return "kernel facts were not read (--tcp-sample off)" }
        if ctx.connectionReady == nil { return "no connection was ready for the request" }
        return "the connection's socket could not be read (TCP_INFO)"
        #else
        return "kernel facts are read on Linux only"
        #endif
    }

    private func transferError(_ ctx: TransferContext, result: Result<Void, CurlError>?) -> TransferError? {
        if let failure = ctx.engineFailure {
            return TransferError(errorClass: .other, message: failure.description)
        }
        if let reason = ctx.abortReason {
            let message: String
            switch reason {
            case .idleTimeout:
                message = "no byte moved for \(DurationText.format(micros: options.idleTimeout ?? 0)) (idle timeout)"
            case .totalTimeout:
                message = "the task took longer than \(DurationText.format(micros: options.totalTimeout ?? 0)) (total timeout)"
            default:
                message = "cancelled"
            }
            return TransferError(errorClass: reason, message: message)
        }
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

    private func finishTask(_ task: TaskState) {
        // Fields of the first and last transactions read in place: copying one would retain every string in it.
        let last = task.transactions.indices.last
        var error = last.flatMap { task.transactions[$0].error }
        let status = last.flatMap { task.transactions[$0].statusCode }
        if error == nil, let status, status >= 400, let last {
            error = TransferError(errorClass: .http, message: "HTTP status \(status) from \(task.transactions[last].url)")
        }
        let started = task.transactions.indices.first.map { task.transactions[$0].timeline.fetchStart }
            ?? anchor.wallMicros(ofMonotonic: task.started)
        let ended = anchor.wallMicros(ofMonotonic: task.lastEnd ?? MonotonicClock.now())
        let record = TaskRecord(
            index: task.index, url: task.spec.url, method: task.spec.method,
            startedAt: started, endedAt: max(started, ended),
            redirectCount: task.redirects, retries: task.retries, statusCode: status, error: error,
            transactions: task.transactions)
        tasksInFlight -= 1
        task.batch.settle(slot: task.batchSlot, record: record)
    }
}
