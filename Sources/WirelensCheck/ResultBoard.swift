import WirelensStore

/// The latest result and the accumulated statistics of every check, for /metrics, and the hand-off of each result to
/// the history's writer.
package actor ResultBoard {
    private var latest: [String: CheckResult] = [:]
    private var statistics: [String: CheckStatistics] = [:]
    private let order: [String]
    private let history: HistoryWriter?
    private let historyUnopened: Bool
    /// The instance's vantage point: the `vantage` of every sample and history row (nil: none).
    package nonisolated let vantage: String?

    /// A board for `checks` (their /metrics order, their histogram buckets), handing results to `history`;
    /// `historyFailed` when the history could not be opened.
    package init(checks: [CheckDefinition], history: HistoryWriter?, historyFailed: Bool = false, vantage: String? = nil) {
        order = checks.map(\.name)
        for check in checks { statistics[check.name] = CheckStatistics(bounds: check.buckets) }
        self.history = history
        self.historyUnopened = historyFailed
        self.vantage = vantage
    }

    /// Keeps a result as its check's latest, counts it (and the ticks its check skipped before it) and hands it to
    /// the history's writer (which stores it in a later batch and reports its own trouble).
    package func record(_ result: CheckResult, skipped: Int = 0) {
        latest[result.name] = result
        statistics[result.name]?.add(result)
        if skipped > 0 { statistics[result.name]?.skip(skipped) }
        history?.add(result.historyEntry(vantage: vantage))
    }

    /// True once the history could not be used (not opened, or a result not stored): `serve`'s exit code says so.
    package var historyFailed: Bool {
        historyUnopened || history?.failed == true
    }

    /// The latest results in configuration order (checks that have not run yet are left out).
    package func results() -> [CheckResult] {
        order.compactMap { latest[$0] }
    }

    /// The exposition text of every check: latest results and statistics.
    package func exposition() -> String {
        PrometheusRenderer.render(results(), vantage: vantage, statistics: statistics)
    }
}
