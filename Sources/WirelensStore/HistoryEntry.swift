/// One stored run of one check: its outcome and the final transaction's phases (µs; nil where a phase did not happen).
package struct HistoryEntry: Sendable, Equatable {
    /// The check's name.
    package var check: String
    /// Wall-clock µs when the run started.
    package var startedAt: Int64
    package var passed: Bool
    package var statusCode: Int?
    /// The error class of a failed task (`timeout.idle`, `http`, …).
    package var errorClass: String?
    package var queue: Int64?
    package var dns: Int64?
    package var connect: Int64?
    package var tls: Int64?
    package var send: Int64?
    package var wait: Int64?
    package var receive: Int64?
    /// Time to the first response byte of the final transaction.
    package var ttfb: Int64?
    /// The whole task, redirects and retries included.
    package var total: Int64?
    package var retries: Int
    package var reused: Bool
    /// Request body bytes per second over the send phase (stored rounded to whole bytes per second).
    package var uploadSpeed: Double?
    /// Response body bytes per second over the receive phase (stored rounded to whole bytes per second).
    package var downloadSpeed: Double?
    /// The vantage point of the instance that ran the check (`--vantage`); nil without one.
    package var vantage: String?

    package init(check: String, startedAt: Int64, passed: Bool, statusCode: Int? = nil, errorClass: String? = nil,
                queue: Int64? = nil, dns: Int64? = nil, connect: Int64? = nil, tls: Int64? = nil, send: Int64? = nil,
                wait: Int64? = nil, receive: Int64? = nil, ttfb: Int64? = nil, total: Int64? = nil, retries: Int = 0,
                reused: Bool = false, uploadSpeed: Double? = nil, downloadSpeed: Double? = nil, vantage: String? = nil) {
        self.check = check
        self.startedAt = startedAt
        self.passed = passed
        self.statusCode = statusCode
        self.errorClass = errorClass
        self.queue = queue
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ttfb = ttfb
        self.total = total
        self.retries = retries
        self.reused = reused
        self.uploadSpeed = uploadSpeed
        self.downloadSpeed = downloadSpeed
        self.vantage = vantage
    }

    /// The phases the history compares, in timeline order.
    package static let phaseNames = ["queue", "dns", "connect", "tls", "send", "wait", "receive", "ttfb", "total"]

    /// A phase's value by its name in `phaseNames`.
    package func phase(named name: String) -> Int64? {
        switch name {
        case "queue": queue
        case "dns": dns
        case "connect": connect
        case "tls": tls
        case "send": send
        case "wait": wait
        case "receive": receive
        case "ttfb": ttfb
        case "total": total
        default: nil
        }
    }
}
