/// How a run's transactions were diagnosed: per verdict, how many and the time they held, longest first.
public struct VerdictTally: Sendable, Equatable {
    /// One verdict's share of a run.
    public struct Row: Sendable, Equatable {
        public var verdict: Verdict
        public var count: Int
        /// The transactions' total time, µs.
        public var time: Int64
        /// The explanation of the longest transaction with this verdict.
        public var example: String
    }

    /// The verdicts found, the one holding the most time first.
    public var rows: [Row]

    /// The tally of the transactions that have a diagnosis.
    public init(_ transactions: [TransactionMetrics]) {
        var byVerdict: [Verdict: (row: Row, longest: Int64)] = [:]
        for tx in transactions {
            guard let diagnosis = tx.diagnosis else { continue }
            var entry = byVerdict[diagnosis.verdict]
                ?? (Row(verdict: diagnosis.verdict, count: 0, time: 0, example: diagnosis.explanation), -1)
            entry.row.count += 1
            entry.row.time += tx.phases.total
            if tx.phases.total > entry.longest {
                entry.longest = tx.phases.total
                entry.row.example = diagnosis.explanation
            }
            byVerdict[diagnosis.verdict] = entry
        }
        rows = byVerdict.values.map(\.row).sorted { ($0.time, $1.verdict.rawValue) > ($1.time, $0.verdict.rawValue) }
    }

    /// The verdict holding the most time, if any transaction was diagnosed.
    public var leading: Row? { rows.first }
}
