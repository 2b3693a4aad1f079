import WirelensStore

/// The latest result and the accumulated statistics of every check, for /metrics, and the hand-off of each result to
/// the history database.
public actor ResultBoard {
    private var latest: [String: CheckResult] = [:]
    private var statistics: [String: CheckStatistics] = [:]
    private let order: [String]
    private let history: CheckHistory?
    /// The instance's vantage point: the `vantage` of every sample and history row (nil: none).
    public nonisolated let vantage: String?
    /// True once the history could not be used (not opened, or a write failed): `serve`'s exit code says so.
    public private(set) var historyFailed: Bool

    /// A board for `checks` (their /metrics order, their histogram buckets); `historyFailed` when the history could
    /// not be opened.
    public init(checks: [CheckDefinition], history: CheckHistory?, historyFailed: Bool = false, vantage: String? = nil) {
        order = checks.map(\.name)
        for check in checks { statistics[check.name] = CheckStatistics(bounds: check.buckets) }
        self.history = history
        self.historyFailed = historyFailed
        self.vantage = vantage
    }

    /// Keeps a result as its check's latest, counts it (and the ticks its check skipped before it) and stores it in
    /// the history; returns the history's trouble when it is new (the caller warns once, not at every result).
    public func record(_ result: CheckResult, skipped: Int = 0) -> HistoryTrouble? {
        latest[result.name] = result
        statistics[result.name]?.add(result)
        if skipped > 0 { statistics[result.name]?.skip(skipped) }
        guard case .failed(let report) = history?.store([result.historyEntry(vantage: vantage)]) else { return nil }
        historyFailed = true
        return report
    }

    /// The latest results in configuration order (checks that have not run yet are left out).
    public func results() -> [CheckResult] {
        order.compactMap { latest[$0] }
    }

    /// The exposition text of every check: latest results and statistics.
    public func exposition() -> String {
        PrometheusRenderer.render(results(), vantage: vantage, statistics: statistics)
    }
}
