/// How a run's transactions were diagnosed: per verdict, how many and the time they held, longest first.
///
/// Accumulates one transaction at a time in bounded state (one entry per verdict), so a summary of any length
/// carries it.
public struct VerdictTally: Sendable {
    /// One verdict's share of a run.
    public struct Row: Sendable, Equatable {
        public var verdict: Verdict
        public var count: Int
        /// The transactions' total time, µs.
        public var time: Int64
        /// The explanation of the longest transaction with this verdict.
        public var example: String
    }

    private var rowsByVerdict: [Verdict: Row] = [:]
    private var longest: [Verdict: Int64] = [:]

    public init() {}

    /// The tally of the transactions that have a diagnosis.
    public init(_ transactions: some Sequence<TransactionMetrics>) {
        for tx in transactions { add(tx) }
    }

    /// Counts one transaction, if it has a diagnosis.
    public mutating func add(_ tx: TransactionMetrics) {
        guard let diagnosis = tx.diagnosis else { return }
        let verdict = diagnosis.verdict
        var row = rowsByVerdict[verdict] ?? Row(verdict: verdict, count: 0, time: 0, example: diagnosis.explanation)
        row.count += 1
        row.time += tx.phases.total
        if tx.phases.total > longest[verdict] ?? -1 {
            longest[verdict] = tx.phases.total
            row.example = diagnosis.explanation
        }
        rowsByVerdict[verdict] = row
    }

    /// The verdicts found, the one holding the most time first.
    public var rows: [Row] {
        rowsByVerdict.values.sorted { ($0.time, $1.verdict.rawValue) > ($1.time, $0.verdict.rawValue) }
    }

    /// The summary's form: verdict name to its figures; nil when no transaction was diagnosed.
    public var stats: [String: VerdictStats]? {
        guard !rowsByVerdict.isEmpty else { return nil }
        return Dictionary(uniqueKeysWithValues: rowsByVerdict.values.map {
            ($0.verdict.rawValue, VerdictStats(transactions: $0.count, timeMs: Format.millis(fromMicros: $0.time),
                                                example: $0.example))
        })
    }
}

/// One verdict's share of a run as the summary writes it.
public struct VerdictStats: Sendable, Codable, Equatable {
    /// Transactions with this verdict.
    public var transactions: Int
    /// Their total time in milliseconds.
    public var timeMs: Double
    /// The explanation of the longest of them.
    public var example: String

    public init(transactions: Int, timeMs: Double, example: String) {
        self.transactions = transactions
        self.timeMs = timeMs
        self.example = example
    }
}
