import WirelensCore

/// The outcome of one run of one check.
package struct CheckResult: Sendable, Equatable {
    /// The check's name.
    package var name: String
    /// The URL requested (redacted).
    package var url: String
    /// Wall-clock µs when the run started.
    package var startedAt: Int64
    /// The probe's record of the task; nil when the check could not start (see `failure`).
    package var record: TaskRecord?
    /// Why the check could not run at all (an engine that could not start, say).
    package var failure: String?
    /// One result per assertion, in configuration order.
    package var assertions: [AssertionResult]
    /// When the server's certificate expires (µs since the epoch), when it was read.
    package var certificateExpiry: Int64?

    /// A result; the URL and the failure are redacted here (`Redactor`), whoever makes it.
    package init(name: String, url: String, startedAt: Int64, record: TaskRecord?, failure: String?,
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
    package var passed: Bool { failure == nil && record != nil && assertions.allSatisfy(\.passed) }

    /// The assertions that failed.
    package var failedAssertions: [AssertionResult] { assertions.filter { !$0.passed } }

    /// The task's final transaction, if any.
    package var lastTransaction: TransactionMetrics? { record?.transactions.last }
}
