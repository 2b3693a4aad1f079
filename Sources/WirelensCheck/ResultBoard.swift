import WirelensStore

/// The latest result of every check, for /metrics, and the hand-off of each result to the history database.
public actor ResultBoard {
    private var latest: [String: CheckResult] = [:]
    private let order: [String]
    private let history: CheckHistory?
    /// Why the last history write failed, if it did (reported once per failure by the caller).
    public private(set) var historyProblem: String?

    /// A board for the checks named in `order` (their /metrics order).
    public init(order: [String], history: CheckHistory?) {
        self.order = order
        self.history = history
    }

    /// Keeps a result as its check's latest and stores it in the history.
    public func record(_ result: CheckResult) {
        latest[result.name] = result
        guard let history else { return }
        do {
            try history.append([result.historyEntry])
            historyProblem = nil
        } catch {
            historyProblem = "cannot write history '\(history.path)': \(error)"
        }
    }

    /// The latest results in configuration order (checks that have not run yet are left out).
    public func results() -> [CheckResult] {
        order.compactMap { latest[$0] }
    }
}
