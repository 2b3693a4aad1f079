import WirelensCore

/// The outcome of one run of one check.
public struct CheckResult: Sendable, Equatable {
    /// The check's name.
    public var name: String
    /// The URL requested (redacted).
    public var url: String
    /// Wall-clock µs when the run started.
    public var startedAt: Int64
    /// The probe's record of the task; nil when the check could not start (see `failure`).
    public var record: TaskRecord?
    /// Why the check could not run at all (an engine that could not start, say).
    public var failure: String?
    /// One result per assertion, in configuration order.
    public var assertions: [AssertionResult]
    /// When the server's certificate expires (µs since the epoch), when it was read.
    public var certificateExpiry: Int64?

    /// A result; the URL and the failure are redacted here (`Redactor`), whoever makes it.
    public init(name: String, url: String, startedAt: Int64, record: TaskRecord?, failure: String?,
                assertions: [AssertionResult], certificateExpiry: Int64?) {
        self.name = name
        self.url = Redactor.url(url)
        self.startedAt = startedAt
        self.record = record
        self.failure = failure.map(Redactor.message)
        self.assertions = assertions
        self.certificateExpiry = certificateExpiry
    }

    /// True when the check ran and every assertion held.
    public var passed: Bool { failure == nil && record != nil && assertions.allSatisfy(\.passed) }

    /// The assertions that failed.
    public var failedAssertions: [AssertionResult] { assertions.filter { !$0.passed } }

    /// The task's final transaction, if any.
    public var lastTransaction: TransactionMetrics? { record?.transactions.last }
}
