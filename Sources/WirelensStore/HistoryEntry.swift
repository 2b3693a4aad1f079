/// One stored run of one check: its outcome and the final transaction's phases (µs; nil where a phase did not happen).
public struct HistoryEntry: Sendable, Equatable {
    /// The check's name.
    public var check: String
    /// Wall-clock µs when the run started.
    public var startedAt: Int64
    public var passed: Bool
    public var statusCode: Int?
    /// The error class of a failed task (`timeout.idle`, `http`, …).
    public var errorClass: String?
    public var queue: Int64?
    public var dns: Int64?
    public var connect: Int64?
    public var tls: Int64?
    public var send: Int64?
    public var wait: Int64?
    public var receive: Int64?
    /// Time to the first response byte of the final transaction.
    public var ttfb: Int64?
    /// The whole task, redirects and retries included.
    public var total: Int64?
    public var retries: Int
    public var reused: Bool
    /// Request body bytes per second over the send phase (stored rounded to whole bytes per second).
    public var uploadSpeed: Double?
    /// Response body bytes per second over the receive phase (stored rounded to whole bytes per second).
    public var downloadSpeed: Double?
    /// The vantage point of the instance that ran the check (`--vantage`); nil without one.
    public var vantage: String?

    public init(check: String, startedAt: Int64, passed: Bool, statusCode: Int? = nil, errorClass: String? = nil,
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
    public static let phaseNames = ["queue", "dns", "connect", "tls", "send", "wait", "receive", "ttfb", "total"]

    /// A phase's value by its name in `phaseNames`.
    public func phase(named name: String) -> Int64? {
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
