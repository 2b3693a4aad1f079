import CCurl
import CCurlShim
import Foundation
import WirelensCore

/// Runs HTTP transfers through one libcurl multi handle owned by a single loop thread.
///
/// The rest of the code talks to it with async/await (`run(_:)`) and `cancel()`. Redirects and retries are
/// followed by the engine itself, so each hop and each attempt is its own transaction.
public final class Engine: @unchecked Sendable {
    public let options: ProbeOptions
    /// The clock pairing used to turn the engine's monotonic stamps into wall-clock time.
    public let anchor: ClockAnchor
    /// Byte counters for a progress display, when one was asked for.
    public let progress: TransferProgress?
    /// The redirect, retry and timeout rules every task's lifecycle follows.
    private let rules: LifecycleRules

    private let multi: UnsafeMutableRawPointer
    private let headerLists: RequestHeaderLists
    private let lock = NSLock()
    private var inbox: [Command] = []
    private var loopThread: Thread?
    private let finished = NSCondition()
    private var loopDone = false

    // Owned by the loop thread.
    /// Submitted tasks not started yet, batch by batch, oldest first (a TaskState is made when a task starts).
    private var submissions: [Submission] = []
    private var active: [UnsafeMutableRawPointer: TransferContext] = [:]
    private var waiting: [TaskState] = []
    private var tasksInFlight = 0
    private var cancelled = false
    private var nextTaskIndex = 0
    /// The TLS facts of each connection by libcurl's number, for the transactions that reuse it. Kept for the
    /// connections used lately (`RecentTable`): libcurl's cache closes a connection idle while thousands of newer
    /// ones were made, so a run of fresh connections (--no-reuse) does not grow this with every one.
    private var connectionTLS = RecentTable<Int, (version: String?, cipher: String?, alpn: String?)>(
        limit: Engine.connectionMemory)
    /// Uploads seen waiting for the peer to acknowledge their body at the last look (see watchBodyAcknowledgements).
    private var awaitingAcknowledgement = 0
    /// The open sockets of the engine's connections and the transfers on each (libcurl's socket callbacks fill it).
    private let sockets = ConnectionSockets()
    /// Connections remembered per generation of `connectionTLS`: far more than libcurl's connection cache holds
    /// (`MAXCONNECTS`, the concurrency) unless the concurrency is in the thousands.
    static let connectionMemory = 8192
    /// Transfers in flight that send a body (only these are watched for the acknowledgement).
    private var uploadsActive = 0
    private var random = SystemRandomNumberGenerator()
    /// Parsed forms of the URLs seen so far (runs repeat the same few URLs many times).
    private var targets = URLMemo<TargetURL>()
    /// Finished transfers read from libcurl in one loop pass (kept to reuse its storage).
    private var finishedBuffer: [(UnsafeMutableRawPointer, CURLcode)] = []
    /// Easy handles kept for reuse (curl_easy_reset clears their options; connections live in the multi handle).
    private var spareHandles: [EasyHandle] = []

    /// Tasks submitted together: `count` of them, task i running `specs[i % specs.count]`.
    private struct Submission {
        let specs: [TaskSpec]
        let count: Int
        let batch: Batch
        /// The engine-wide index of the first task, set when the loop takes the submission in.
        var firstIndex = 0
        var next = 0
    }

    private enum Command {
        case submit(Submission)
        case cancel
        case shutdown
    }

    /// Creates the multi handle with the run's connection limits and starts the loop thread.
    ///
    /// - Parameter progress: counters the transfers bump as bytes move, for a progress display (nil: none).
    public init(options: ProbeOptions, progress: TransferProgress? = nil) throws(ProbeError) {
        self.progress = progress
        try Libcurl.initialize()
        headerLists = try RequestHeaderLists(options: options)
        guard let multi = curl_multi_init() else { throw ProbeError.engine("curl_multi_init returned NULL") }
        self.multi = multi
        self.options = options
        anchor = MonotonicClock.anchor()
        rules = LifecycleRules(options: options, anchor: anchor)
        func set(_ option: CURLMoption, _ value: Int, _ name: String) throws(ProbeError) {
            let code = wl_multi_setopt_long(multi, option, value)
            guard code == CURLM_OK else {
                throw ProbeError.engine("\(name): \(String(cString: curl_multi_strerror(code)))")
            }
        }
        do {
            if let limit = options.maxHostConnections {
                try set(CURLMOPT_MAX_HOST_CONNECTIONS, limit, "max host connections")
            }
            if let limit = options.maxConnections {
                try set(CURLMOPT_MAX_TOTAL_CONNECTIONS, limit, "max connections")
            }
            try set(CURLMOPT_PIPELINING, options.multiplex ? wl_pipe_multiplex() : wl_pipe_nothing(), "multiplexing")
            try set(CURLMOPT_MAXCONNECTS, max(options.concurrency, options.maxConnections ?? 0, 8), "connection cache")
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        // The loop thread holds no reference that keeps the engine alive (an unowned one did: retained for the
        // whole loop, it kept every engine and its thread until the process ended). The engine's deinit stops the
        // loop and waits for it, so the engine outlives every access from the thread; init waits until the thread
        // runs, so the thread never starts on an engine already gone.
        let engine = Unmanaged.passUnretained(self)
        let running = DispatchSemaphore(value: 0)
        let thread = Thread {
            running.signal()
            engine._withUnsafeGuaranteedRef { $0.loop() }
        }
        thread.name = "wirelens-engine"
        loopThread = thread
        thread.start()
        running.wait()
    }

    deinit {
        post(.shutdown)
        finished.lock()
        while !loopDone { finished.wait() }
        finished.unlock()
        curl_multi_cleanup(multi)
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
            let batch = Batch(count: count, keepsRecords: keepsRecords, onTaskFinished: onTaskFinished) { records in
                continuation.resume(returning: records)
            }
            post(.submit(Submission(specs: specs, count: count, batch: batch)))
        }
    }

    /// Stops the run: transfers in flight end as cancelled and no new task starts. Safe from any thread.
    public func cancel() {
        post(.cancel)
    }

    private func post(_ command: Command) {
        lock.lock()
        inbox.append(command)
        lock.unlock()
        curl_multi_wakeup(multi)
    }

    // MARK: The loop

    private func loop() {
        var running = true
        while running {
            lock.lock()
            let commands = inbox
            inbox.removeAll(keepingCapacity: true)
            lock.unlock()
            for command in commands {
                switch command {
                case .submit(let submission): enqueue(submission)
                case .cancel: cancelAll()
                case .shutdown: running = false
                }
            }
            if !running { break }
            startReadyWork()
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            watchBodyAcknowledgements()
            sampleConnections()
            collectFinishedTransfers()
            enforceTimeouts()
            startReadyWork()
            curl_multi_poll(multi, nil, 0, pollTimeoutMillis(), nil)
        }
        cancelAll()
        spareHandles.forEach { $0.destroy() }
        spareHandles.removeAll()
        finished.lock()
        loopDone = true
        finished.broadcast()
        finished.unlock()
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
    /// byte) ends their request. Looked at after each perform, and every `acknowledgementPollMillis` while any waits.
    private func watchBodyAcknowledgements() {
        guard uploadsActive > 0 else {
            awaitingAcknowledgement = 0
            return
        }
        var waiting = 0
        var now: Int64?
        for ctx in active.values where ctx.body != .none && !ctx.acknowledgement.isSettled {
            guard ctx.acknowledgement.look(responseStart: ctx.responseStart, bodyReadEnd: ctx.bodyReadEnd) == .readUploaded,
                  let readEnd = ctx.bodyReadEnd else { continue }
            var uploaded: curl_off_t = 0
            let complete = wl_easy_getinfo_off(ctx.easy, CURLINFO_SIZE_UPLOAD_T, &uploaded) == CURLE_OK
                && Int64(uploaded) >= ctx.body.size
            var step = ctx.acknowledgement.uploaded(complete: complete, socketKnown: ctx.tcpSocket != nil,
                                                    bodyReadEnd: readEnd)
            if step == .readSendQueue, let socket = ctx.tcpSocket {
                let queued = wl_socket_unacknowledged_bytes(socket)
                var stamp: Int64 = 0
                if queued >= 0 {
                    stamp = now ?? MonotonicClock.now()
                    now = stamp
                }
                step = ctx.acknowledgement.sendQueue(queued < 0 ? nil : Int(queued), at: stamp, bodyReadEnd: readEnd)
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
        guard let handle = spareHandles.popLast() ?? EasyHandle.make() else {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: "curl_easy_init failed"))
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
        ctx.response = ResponseWriter(task.spec.response)
        ctx.keepsCredentials = access.keepsCredentials
        ctx.refusesLinkLocal = access.refusesLinkLocal
        ctx.retryWait = attempt.retryWait
        do {
            try EasyConfigurator(options: options, headers: headerLists).configure(ctx, remainingMicros: access.remainingMicros)
        } catch {
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: error.description),
                            discarding: ctx)
            return
        }
        active[handle.easy] = ctx
        if ctx.body != .none { uploadsActive += 1 }
        let code = curl_multi_add_handle(multi, handle.easy)
        if code != CURLM_OK {
            active[handle.easy] = nil
            if ctx.body != .none { uploadsActive -= 1 }
            let message = "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))"
            failBeforeStart(task, at: now, error: TransferError(errorClass: .other, message: message), discarding: ctx)
        }
    }

    private func parsedTarget(_ url: String) throws(ProbeError) -> TargetURL {
        try targets.value(for: url) { (url) throws(ProbeError) in try TargetURL(url) }
    }

    /// Keeps a finished easy handle for the next transfer, up to the concurrency limit.
    private func recycle(_ handle: EasyHandle) {
        if spareHandles.count < max(1, options.concurrency) {
            handle.reset()
            spareHandles.append(handle)
        } else {
            handle.destroy()
        }
    }

    /// Ends a task whose transaction could not start: the lifecycle records the failed transaction and finishes the
    /// task. A context that was already made is released and its easy handle freed.
    private func failBeforeStart(_ task: TaskState, at now: Int64, error: TransferError,
                                 discarding ctx: TransferContext? = nil) {
        if let ctx {
            ctx.release()
            ctx.handle.destroy()
        }
        perform(task.lifecycle.startFailed(error, at: now), for: task)
    }

    private func collectFinishedTransfers() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                finishedBuffer.append((easy, message.pointee.data.result))
            }
        }
        // All messages are read before any transfer completes: completing starts new transfers.
        for (easy, code) in finishedBuffer {
            guard let ctx = active[easy] else { continue }
            complete(ctx, code: code)
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
            complete(ctx, code: nil)
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
            complete(ctx, code: nil)
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
    /// which follows a redirect, parks for a retry or finishes the task.
    private func complete(_ ctx: TransferContext, code: CURLcode?) {
        let easy = ctx.easy
        // The last snapshot before the connection may go back to the pool (or be closed by the removal).
        ctx.sampleTCP(at: MonotonicClock.now(), last: true)
        sockets.detach(ctx)
        curl_multi_remove_handle(multi, easy)
        active[easy] = nil
        if ctx.body != .none { uploadsActive -= 1 }
        let end = MonotonicClock.now()
        let info = EasyInfo(easy, addresses: ctx.localIP == nil || ctx.remoteIP == nil)
        let metrics = transaction(ctx, info: info, code: code, end: end)
        // Judged before anything connects there: the Location's origin, by libcurl's parser as every URL.
        let location = info.redirectURL.map { TaskLifecycle.Location(url: $0, origin: try? TargetURL.origin(of: $0)) }
        let task = ctx.task
        if let body = ctx.response.body { task.responseBody = body }
        ctx.release()
        recycle(ctx.handle)
        perform(task.lifecycle.ended(metrics, at: end, location: location, retryAfter: ctx.retryAfter,
                                     runCancelled: cancelled, random: &random), for: task)
    }

    /// The transaction a finished transfer records: what it saw, read from its context and libcurl, assembled by
    /// `TransferObservation`. The TLS facts of a connection are kept by its number for the transfers that reuse it.
    private func transaction(_ ctx: TransferContext, info: EasyInfo, code: CURLcode?, end: Int64) -> TransactionMetrics {
        if let id = ctx.connectionId {
            if ctx.tlsVersion != nil || ctx.alpn != nil {
                connectionTLS[id] = (ctx.tlsVersion, ctx.tlsCipher, ctx.alpn)
            } else if ctx.connectionReady != nil, info.numConnects == 0, let known = connectionTLS[id] {
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
            error: transferError(ctx, code: code), tcp: facts, readsTCP: ctx.readsTCP)
        return seen.metrics(anchor: anchor, throughProxy: rules.throughProxy)
    }

    /// The transfer's failure: the reason the engine aborted it, or libcurl's code with the transfer's own refusal,
    /// local failure or error text.
    private func transferError(_ ctx: TransferContext, code: CURLcode?) -> TransferError? {
        if let reason = ctx.abortReason { return rules.abortError(reason) }
        guard let code, code != CURLE_OK else { return nil }
        if let refusal = ctx.refusal {
            return TransferError(errorClass: .protocol, curlCode: Int(code.rawValue), message: refusal)
        }
        if let local = ctx.localFailure {
            return TransferError(errorClass: .file, curlCode: Int(code.rawValue), message: local)
        }
        let text = ctx.errorText ?? String(cString: curl_easy_strerror(code))
        let errorClass = CurlErrorMap.classify(code: Int(code.rawValue), connected: ctx.connectionReady != nil, message: text)
        return TransferError(errorClass: errorClass, curlCode: Int(code.rawValue), message: text)
    }
}
