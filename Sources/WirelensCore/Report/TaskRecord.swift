/// One task of a run: its transactions (initial, redirects, retries) and its outcome.
public struct TaskRecord: Sendable, Equatable {
    /// Position of the task in the run (0-based).
    public var index: Int
    /// The URL the task started with, redacted (`Redactor.url`) whenever it is set.
    public var url: String {
        didSet { url = Redactor.url(url) }
    }
    public var method: String
    /// Wall-clock µs when the task started.
    public var startedAt: Int64
    /// Wall-clock µs when the task ended.
    public var endedAt: Int64
    /// Redirects followed.
    public var redirectCount: Int
    /// Retries made.
    public var retries: Int
    /// The final response's status, if any.
    public var statusCode: Int?
    /// The task's failure: a transport error, or class `http` for a final status of 400 or more.
    public var error: TransferError?
    public var transactions: [TransactionMetrics]
    /// The response body kept in memory, for a task whose sink is `ResponseSink.memory` (and that got a body); never
    /// part of a report.
    public var responseBody: ResponseBody?

    /// A record; its URL is redacted here, so that no caller can forget it.
    public init(index: Int, url: String, method: String, startedAt: Int64, endedAt: Int64, redirectCount: Int,
                retries: Int, statusCode: Int?, error: TransferError?, transactions: [TransactionMetrics]) {
        self.index = index
        self.url = Redactor.url(url)
        self.method = method
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.redirectCount = redirectCount
        self.retries = retries
        self.statusCode = statusCode
        self.error = error
        self.transactions = transactions
    }

    /// The task's duration in µs (taskInterval).
    public var duration: Int64 { endedAt - startedAt }

    /// True when the task ended without a transport failure and with a status below 400.
    public var succeeded: Bool { error == nil }
}
