import WirelensCore

/// When each thing of one attempt of a transfer happened, on the engine's monotonic clock (ns), and what it is.
///
/// A transfer's context holds one; a resend after a dead connection starts a fresh one (`resend(at:)`), so nothing of
/// the abandoned attempt leaks into the next. The callbacks stamp it through the `note…` functions, which take the
/// instant as an argument: no clock is read here, and a test places every event itself.
struct AttemptMarks {
    /// The attempt's kind: a resend after a dead connection is a retry.
    private(set) var kind: TransactionKind
    /// The wait before this attempt (µs) and the server's Retry-After as asked, when this is a retry.
    var retryWait: TaskLifecycle.RetryWait?
    /// When the attempt began: the transfer's start, or the moment libcurl resent it after a dead connection.
    private(set) var fetchStart: Int64
    /// When libcurl made this attempt's first socket (the sockopt callback, before it connects).
    var socketOpenedAt: Int64?
    /// When libcurl said this attempt's new connection was made ("Connected to": after the SYN/ACK).
    var connectedAt: Int64?
    /// When the connection was ready and the request about to go (PREREQFUNCTION).
    var connectionReady: Int64?
    /// The last write of request headers or body before the response began.
    private(set) var lastSend: Int64?
    /// The first write of request headers, and whether they asked for `Expect: 100-continue`.
    private(set) var headerOutAt: Int64?
    private(set) var expectSent = false
    /// The first write of request body bytes.
    private(set) var firstBodyOutAt: Int64?
    /// The status line of the final (non-1xx) response.
    var responseStart: Int64?
    /// When the last response byte was handed over (a header line or a body chunk): a completed response's end.
    var lastReceivedAt: Int64?
    /// The last byte moved in any direction, for the idle timeout.
    var lastActivity: Int64
    /// When libcurl made the socket of the connection this attempt opened.
    var connectionOpened: Int64?
    /// When libcurl closed the connection while this attempt was on it.
    var connectionClosed: Int64?
    /// Request header bytes libcurl wrote in this attempt (its verbose output's HEADER_OUT).
    private(set) var headerBytesOut: Int64 = 0
    /// When the request body's last byte reached the server, as the engine's looks at the socket's TCP facts
    /// estimate it.
    var acknowledgement = AcknowledgementWatch()

    init(kind: TransactionKind, retryWait: TaskLifecycle.RetryWait? = nil, startingAt now: Int64) {
        self.kind = kind
        self.retryWait = retryWait
        fetchStart = now
        lastActivity = now
    }

    /// The marks of the resend libcurl makes after a dead connection: a retry of its own, starting `now`.
    static func resend(at now: Int64) -> AttemptMarks {
        AttemptMarks(kind: .retry, startingAt: now)
    }

    /// libcurl wrote `bytes` of request headers at `now`; `asksForContinue` tells whether they ask for
    /// `Expect: 100-continue` (read only for the first write of a transfer that sends a body).
    mutating func noteHeaderOut(bytes: Int, at now: Int64, asksForContinue: () -> Bool) {
        lastActivity = now
        headerBytesOut += Int64(bytes)
        if responseStart == nil { lastSend = now }
        if headerOutAt == nil {
            headerOutAt = now
            expectSent = asksForContinue()
        }
    }

    /// libcurl wrote request body bytes at `now`.
    mutating func noteBodyOut(at now: Int64) {
        lastActivity = now
        if responseStart == nil { lastSend = now }
        if firstBodyOutAt == nil { firstBodyOutAt = now }
    }

    /// The end of the request as observed: the last write to the socket or the end of the body (`bodyReadEnd`, when
    /// the read callback reached it), whichever is later; for a body, the moment its last byte reached the server when
    /// the engine's looks could tell (bytes written but still in the kernel's send queue or a slow path's queue are
    /// not sent yet: they would otherwise count as server wait; and the server's ACK of the last byte may be delayed,
    /// which would count server wait as send).
    func requestEnd(bodyReadEnd: Int64?) -> Int64? {
        let written: Int64?
        switch (lastSend, bodyReadEnd) {
        case let (a?, b?): written = max(a, b)
        case let (a?, nil): written = a
        case let (nil, b?): written = b
        default: written = nil
        }
        guard let arrival = acknowledgement.arrival else { return written }
        return max(written ?? arrival, arrival)
    }

    /// What the timeouts see of the attempt.
    var activity: TaskLifecycle.Activity {
        TaskLifecycle.Activity(connectionReady: connectionReady != nil, lastActivity: lastActivity)
    }
}
