import WirelensStore

/// The latest result of every check, for /metrics, and the hand-off of each result to the history database.
public actor ResultBoard {
    private var latest: [String: CheckResult] = [:]
    private let order: [String]
    private let history: CheckHistory?
    /// True once the history could not be used (not opened, or a write failed): `serve`'s exit code says so.
    public private(set) var historyFailed: Bool

    /// A board for the checks named in `order` (their /metrics order); `historyFailed` when the history could not be
    /// opened.
    public init(order: [String], history: CheckHistory?, historyFailed: Bool = false) {
        self.order = order
        self.history = history
        self.historyFailed = historyFailed
    }

    /// Keeps a result as its check's latest and stores it in the history; returns the history's trouble when it is
    /// new (the caller warns once, not at every result).
    public func record(_ result: CheckResult) -> HistoryTrouble? {
        latest[result.name] = result
        guard case .failed(let report) = history?.store([result.historyEntry]) else { return nil }
        historyFailed = true
        return report
    }

    /// The latest results in configuration order (checks that have not run yet are left out).
    public func results() -> [CheckResult] {
        order.compactMap { latest[$0] }
    }
}
