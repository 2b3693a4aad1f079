import WirelensCore

/// The attempts libcurl gave up on within one transfer (the connection died under the request, or the server refused
/// the HTTP/2 stream, and libcurl resent it on a fresh connection), and what sets the current attempt's figures
/// apart from theirs.
///
/// libcurl 7.88 resets its timers only when a transfer starts (or is added again), so after a resend each of its
/// cumulative offsets holds the attempts before; CURLINFO_REQUEST_SIZE counts the bytes of every request issued.
struct ResentAttempts {
    /// The abandoned attempts in order, each its own failed transaction.
    private(set) var abandoned: [TransferObservation] = []
    /// libcurl's timers when it last resent the request.
    private var timersAtResend = CurlTimers()

    /// Keeps an abandoned attempt, with libcurl's timers at the moment it gave up on it.
    mutating func abandon(_ seen: TransferObservation, timers: CurlTimers) {
        abandoned.append(seen)
        timersAtResend = timers
    }

    /// The engine handed the transfer to libcurl again from the start (removed and added back): libcurl's timers
    /// start again too.
    mutating func restartedInLibcurl() {
        timersAtResend = CurlTimers()
    }

    /// libcurl's timers for the current attempt alone: since the last resend (none: libcurl's own), never below 0;
    /// TOTAL stays the whole transfer's.
    func attemptTimers(_ t: CurlTimers) -> CurlTimers {
        let b = timersAtResend
        return CurlTimers(
            nameLookup: max(0, t.nameLookup - b.nameLookup), connect: max(0, t.connect - b.connect),
            appConnect: max(0, t.appConnect - b.appConnect), preTransfer: max(0, t.preTransfer - b.preTransfer),
            startTransfer: max(0, t.startTransfer - b.startTransfer), total: t.total)
    }

    /// The current attempt's request header bytes out of libcurl's count over every request it issued (`requestSize`):
    /// the abandoned attempts' are left out.
    func attemptRequestBytes(_ requestSize: Int64) -> Int64 {
        max(0, requestSize - abandoned.reduce(0) { $0 + $1.requestHeaderBytes })
    }
}
