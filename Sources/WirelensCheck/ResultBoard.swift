import WirelensStore

/// The latest result of every check, for /metrics, and the hand-off of each result to the history's writer.
public actor ResultBoard {
    private var latest: [String: CheckResult] = [:]
    private let order: [String]
    private let history: HistoryWriter?
    private let historyUnopened: Bool

    /// A board for the checks named in `order` (their /metrics order), handing results to `history`;
    /// `historyFailed` when the history could not be opened.
    public init(order: [String], history: HistoryWriter?, historyFailed: Bool = false) {
        self.order = order
        self.history = history
        self.historyUnopened = historyFailed
    }

    /// Keeps a result as its check's latest and hands it to the history's writer (which stores it in a later batch
    /// and reports its own trouble).
    public func record(_ result: CheckResult) {
        latest[result.name] = result
        history?.add(result.historyEntry)
    }

    /// True once the history could not be used (not opened, or a result not stored): `serve`'s exit code says so.
    public var historyFailed: Bool {
        historyUnopened || history?.failed == true
    }

    /// The latest results in configuration order (checks that have not run yet are left out).
    public func results() -> [CheckResult] {
        order.compactMap { latest[$0] }
    }
}
