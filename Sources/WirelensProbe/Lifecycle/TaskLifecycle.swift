import WirelensCore

/// Where one task is in its transactions, redirects and retries: a value that takes events and returns actions.
///
/// The engine's loop feeds it what happened (the task was taken up, a transaction's URL was parsed, a transaction
/// ended, a timer fired, the run was cancelled), each event with the monotonic instant (ns) it happened at, and
/// executes the action it gets back (start a transaction, send it with these credentials, park until a retry is
/// due, abort a transfer, finish with this record). It holds no libcurl type and reads no clock, so every rule
/// (`RedirectPolicy`, `RetryPolicy`, Retry-After, the total and idle timeouts) is decided here and tested here
/// without a socket. An event that cannot happen in the current state returns `.invalid` and changes nothing.
struct TaskLifecycle {
    /// The task's stage.
    enum State: Equatable {
        /// Not taken up yet.
        case idle
        /// A transaction of this kind was decided; the engine is parsing its URL.
        case preparing(TransactionKind)
        /// A transaction of this kind is in flight.
        case transferring(TransactionKind)
        /// Waiting out a retry's backoff until this monotonic instant (ns).
        case parked(until: Int64)
        /// Ended; the record was handed out.
        case finished
    }

    /// The next transaction's request, before its URL is parsed.
    struct Attempt: Equatable {
        var kind: TransactionKind
        var url: String
        var method: String
        /// False when the task's body is not sent (a hop that turned the method into GET).
        var sendsBody: Bool
        /// How the body part goes out (nil: none), as libcurl is to be told (`BodyKind`).
        var bodyKind: BodyKind? = nil
        /// For a retry: the wait before it and the Retry-After asked for.
        var retryWait: RetryWait?
    }

    /// The wait before a retry (µs: the backoff, or the Retry-After after the cap) and the server's Retry-After as
    /// asked (µs), recorded on the retry's transaction.
    struct RetryWait: Equatable {
        var planned: Int64
        var requested: Int64?
    }

    /// What a transaction to a parsed URL may carry and do.
    struct Access: Equatable {
        /// True when it sends the secret headers (`RedirectPolicy.keepsCredentials`).
        var keepsCredentials: Bool
        /// The user info its URL must carry (nil: none): the URL's own, or the task's on a hop that keeps
        /// credentials and names none, as curl does.
        var userInfo: TargetURL.UserInfo?
        /// True when it may not connect to a link-local address (a hop elsewhere, in a run that refuses them).
        var refusesLinkLocal: Bool
        /// True when a 3xx answer of it will be followed, so that answer's body goes to no sink.
        var followsRedirects: Bool
        /// µs it may take before the task's total timeout (at least 1 ms); nil: no limit.
        var remainingMicros: Int64?
    }

    /// A redirect's target as libcurl resolved it, with its origin when libcurl's URL parser reads one.
    struct Location: Equatable {
        var url: String
        var origin: Origin?
    }

    /// What a transfer in flight shows the timeouts.
    struct Activity: Equatable {
        /// True once its connection was ready (the idle timeout counts only from then).
        var connectionReady: Bool
        /// Monotonic ns when a byte last moved.
        var lastActivity: Int64

        /// No transfer in flight, or one whose connection is not ready: only the total timeout applies.
        static let notConnected = Activity(connectionReady: false, lastActivity: 0)
    }

    /// What the engine does next.
    enum Action: Equatable {
        /// Nothing now.
        case none
        /// Parse the attempt's URL and answer with `resolve` (or `startFailed`).
        case transact(Attempt)
        /// Start the transfer with these rules (or answer with `startFailed`).
        case send(Access)
        /// Keep the task aside until this monotonic instant (ns), then `wake` it.
        case park(until: Int64)
        /// Abort the transfer in flight for this reason; its end comes back as `ended`.
        case abort(ErrorClass)
        /// The task is over: settle this record.
        case finish(TaskRecord)
        /// The event cannot happen in this state (a bug in the caller); nothing changed.
        case invalid(String)
    }

    private(set) var state: State = .idle
    let rules: LifecycleRules
    let index: Int
    /// The task's own URL and method (the record's).
    let taskURL: String
    let taskMethod: String
    /// The URL, method and body of the next or current transaction (a redirect changes them).
    private(set) var url: String
    private(set) var method: String
    private(set) var sendsBody: Bool
    private(set) var bodyKind: BodyKind?
    /// True when the user named the method: hops keep it (`TaskSpec.keepsMethod`).
    let keepsMethod: Bool
    private(set) var redirects = 0
    private(set) var retries = 0
    /// Requests libcurl resent on a fresh connection after the one they went out on died (outside the retry policy).
    private(set) var resends = 0
    /// The transactions so far, in order.
    private(set) var transactions: [TransactionMetrics] = []
    /// Monotonic ns when the task was taken up.
    private(set) var started: Int64 = 0
    /// Monotonic ns after which the task fails with a total timeout (`.max`: never).
    private(set) var deadline: Int64 = .max
    /// Monotonic ns when the latest transaction ended.
    private(set) var lastEnd: Int64?
    /// The origin and user info of the task's first URL, set when it is parsed: hops elsewhere get no credentials.
    private(set) var origin: Origin?
    private var userInfo: TargetURL.UserInfo?
    /// The wait of the retry that is due, for its attempt.
    private var pendingWait: RetryWait?

    /// A task of `request`, which has a body to send when `sendsBody`.
    init(index: Int, url: String, request: RedirectPolicy.Request, sendsBody: Bool, rules: LifecycleRules) {
        self.index = index
        taskURL = url
        taskMethod = request.method
        self.url = url
        method = request.method
        bodyKind = request.bodyKind
        keepsMethod = request.keepsMethod
        self.sendsBody = sendsBody
        self.rules = rules
    }

    /// A task whose body, if any, goes out as its method's does (`BodyKind.inferred`) and whose method hops may change.
    init(index: Int, url: String, method: String, sendsBody: Bool, rules: LifecycleRules) {
        self.init(index: index, url: url,
                  request: RedirectPolicy.Request(method: method, bodyKind: BodyKind.inferred(method: method, hasBody: sendsBody)),
                  sendsBody: sendsBody, rules: rules)
    }

    /// When the parked task's retry is due (monotonic ns), nil when it is not parked.
    var wakeTime: Int64? {
        if case .parked(let due) = state { due } else { nil }
    }

    // MARK: Events

    /// The engine takes the task up: its first transaction.
    mutating func start(at now: Int64) -> Action {
        guard state == .idle else { return invalid("start") }
        started = now
        if let total = rules.totalTimeout { deadline = now + total * 1000 }
        return prepare(.initial)
    }

    /// The decided transaction's URL parsed to `origin` with `userInfo`: what the transaction may carry.
    mutating func resolve(origin target: Origin, userInfo targetUserInfo: TargetURL.UserInfo?, at now: Int64) -> Action {
        guard case .preparing(let kind) = state else { return invalid("resolve") }
        if origin == nil {
            origin = target
            userInfo = targetUserInfo
        }
        let first = origin ?? target
        // Credentials (secret headers, user info) go only to the task's own origin, unless hops are trusted; a hop
        // there without user info of its own carries the task's, as curl's does.
        let keeps = RedirectPolicy.keepsCredentials(first: first, next: target, trusted: rules.trustedRedirects)
        state = .transferring(kind)
        return .send(Access(
            keepsCredentials: keeps, userInfo: keeps ? targetUserInfo ?? userInfo : nil,
            refusesLinkLocal: !rules.allowsLinkLocalRedirects && target != first,
            followsRedirects: redirects < rules.maxRedirects,
            remainingMicros: deadline == .max ? nil : max(1000, (deadline - now) / 1000)))
    }

    /// The decided transaction could not start (its URL did not parse, libcurl refused it): it is recorded as
    /// failed with `error` and the task ends.
    mutating func startFailed(_ error: TransferError, at now: Int64) -> Action {
        let kind: TransactionKind
        switch state {
        case .preparing(let k), .transferring(let k): kind = k
        default: return invalid("startFailed")
        }
        var m = TransactionMetrics(kind: kind, url: url, method: method,
                                   timeline: Timeline(fetchStart: rules.anchor.wallMicros(ofMonotonic: now)),
                                   phases: Phases(total: 0), reusedConnection: false,
                                   proxyConnection: rules.throughProxy, curlTimers: CurlTimers())
        m.error = error
        transactions.append(m)
        return finish(at: now)
    }

    /// The transaction in flight ended at `end` as `metrics` records it: follow its redirect, park for a retry, or
    /// finish.
    ///
    /// - Parameters:
    ///   - location: where a 3xx answer points (libcurl's resolved Location), nil when it names none.
    ///   - retryAfter: the final answer's Retry-After value, as sent.
    ///   - runCancelled: the run was cancelled: nothing follows.
    ///   - random: draws the backoff's jitter, only when a retry is weighed.
    mutating func ended(_ metrics: consuming TransactionMetrics, at end: Int64, location: Location?,
                        retryAfter: String?, runCancelled: Bool,
                        random: inout some RandomNumberGenerator) -> Action {
        guard case .transferring = state else { return invalid("ended") }
        lastEnd = end
        let errorClass = metrics.error?.errorClass
        let status = metrics.statusCode
        transactions.append(metrics)
        if runCancelled || errorClass == .cancelled { return finish(at: end) }
        if errorClass == nil, let status, (300..<400).contains(status), rules.maxRedirects > 0,
           let hop = RedirectPolicy.next(status: status,
                                         request: RedirectPolicy.Request(method: method, bodyKind: bodyKind,
                                                                         keepsMethod: keepsMethod),
                                         keepsPostAfter: rules.keepsPostAfter, hasLocation: location != nil),
           let next = location {
            guard redirects < rules.maxRedirects else {
                return fail(TransferError(errorClass: .protocol, message: "more than \(rules.maxRedirects) redirects"),
                            at: end)
            }
            // Refused before any transaction starts, so nothing connects to where the Location points.
            if let target = next.origin,
               let refusal = RedirectPolicy.refusal(next: target, first: origin ?? target,
                                                    allowsLinkLocal: rules.allowsLinkLocalRedirects) {
                // The message names the Location (redacted as every message is), so the reader sees where it pointed.
                return fail(TransferError(errorClass: .protocol, message: "\(refusal.description) (Location: \(next.url))"),
                            at: end)
            }
            redirects += 1
            url = next.url
            method = hop.method
            bodyKind = hop.bodyKind
            sendsBody = sendsBody && hop.keepsBody
            return prepare(.redirect)
        }
        guard rules.retry.maxRetries > retries, rules.retry.allowsRetry(elapsed: (end - started) / 1000) else {
            return finish(at: end)
        }
        let asked = retryAfter.flatMap {
            RetryPolicy.parseRetryAfter($0, nowMicros: rules.anchor.wallMicros(ofMonotonic: end))
        }
        if let delay = rules.retry.delay(retry: retries + 1, error: errorClass, status: status, retryAfter: asked,
                                         unit: Double.random(in: 0..<1, using: &random)),
           delay < (deadline - end) / 1000 {  // the wait ends before the deadline (and end + delay fits)
            retries += 1
            pendingWait = RetryWait(planned: delay, requested: asked)
            state = .parked(until: end + delay * 1000)
            return .park(until: end + delay * 1000)
        }
        return finish(at: end)
    }

    /// libcurl gave up on the transaction in flight (its connection died under the request) and resent it on a fresh
    /// connection: `metrics` is the attempt that died, recorded before the resend's. The resend does not count
    /// against the retry policy; the task's `retries` counts it.
    mutating func resent(_ metrics: consuming TransactionMetrics) -> Action {
        guard case .transferring = state else { return invalid("resent") }
        resends += 1
        transactions.append(metrics)
        return .none
    }

    /// A timer fired at `now` while the task is parked: its retry starts once due.
    mutating func wake(at now: Int64) -> Action {
        guard case .parked(let due) = state else { return invalid("wake") }
        guard due <= now else { return .none }
        return prepare(.retry)
    }

    /// The timeouts looked at `now`: a transfer in flight (`activity`) is aborted past the total deadline or after
    /// the idle time; a parked task past its deadline ends.
    mutating func checkTimeouts(at now: Int64, activity: Activity = .notConnected) -> Action {
        switch state {
        case .transferring:
            if now >= deadline { return .abort(.totalTimeout) }
            if let idle = rules.idleTimeout, activity.connectionReady, now - activity.lastActivity >= idle * 1000 {
                return .abort(.idleTimeout)
            }
            return .none
        case .parked:
            return now >= deadline ? finish(at: now) : .none
        case .idle, .preparing, .finished:
            return invalid("checkTimeouts")
        }
    }

    /// The run was cancelled: a transfer in flight is aborted, a parked task ends.
    mutating func cancel(at now: Int64) -> Action {
        switch state {
        case .transferring: .abort(.cancelled)
        case .parked: finish(at: now)
        case .idle, .preparing, .finished: invalid("cancel")
        }
    }

    // MARK: Queries

    /// The earliest instant (monotonic ns) at which `checkTimeouts` can act on the transfer in flight; `.max` when
    /// no timeout applies.
    func nextTimeout(activity: Activity) -> Int64 {
        guard case .transferring = state else { return .max }
        var next = deadline
        if let idle = rules.idleTimeout, activity.connectionReady { next = min(next, activity.lastActivity + idle * 1000) }
        return next
    }

    // MARK: Steps

    private mutating func prepare(_ kind: TransactionKind) -> Action {
        state = .preparing(kind)
        var attempt = Attempt(kind: kind, url: url, method: method, sendsBody: sendsBody, bodyKind: bodyKind)
        if kind == .retry {
            attempt.retryWait = pendingWait
            pendingWait = nil
        }
        return .transact(attempt)
    }

    /// Ends the task with `error` on its latest transaction.
    private mutating func fail(_ error: TransferError, at now: Int64) -> Action {
        transactions[transactions.count - 1].error = error
        return finish(at: now)
    }

    /// Ends the task: its record, from the transactions (a final status of 400 or more is the task's failure).
    private mutating func finish(at now: Int64) -> Action {
        state = .finished
        // Fields of the first and last transactions read in place: copying one would retain every string in it.
        let last = transactions.indices.last
        var error = last.flatMap { transactions[$0].error }
        let status = last.flatMap { transactions[$0].statusCode }
        if error == nil, let status, status >= 400, let last {
            error = TransferError(errorClass: .http, message: "HTTP status \(status) from \(transactions[last].url)")
        }
        let startedAt = transactions.indices.first.map { transactions[$0].timeline.fetchStart }
            ?? rules.anchor.wallMicros(ofMonotonic: started)
        let endedAt = rules.anchor.wallMicros(ofMonotonic: lastEnd ?? now)
        let record = TaskRecord(
            index: index, url: taskURL, method: taskMethod, startedAt: startedAt, endedAt: max(startedAt, endedAt),
            redirectCount: redirects, retries: retries + resends, statusCode: status, error: error,
            transactions: transactions)
        transactions = []
        return .finish(record)
    }

    private func invalid(_ event: String) -> Action {
        .invalid("\(event) in state \(state)")
    }
}
