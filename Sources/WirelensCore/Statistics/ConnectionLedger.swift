/// Gathers a run's connections from its transactions, in any order, for the report's `connections`, in memory that
/// stays bounded as runs grow.
///
/// A connection is known by libcurl's number and its 4-tuple (`Summary.ConnectionKey`), as the summary's tally.
/// Bounds: at most `connectionLimit` connections are recorded (16 384 by default, the summary's span bound; each
/// about 1 KB): a connection first seen beyond it is not listed, and its transactions are counted in
/// `unlistedTransactions`. Transaction
/// references are listed while the run has listed fewer than `referenceLimit` (65 536, 16 bytes each); beyond it a
/// connection's `transactionCount` still counts every transaction and its `transactions` stop growing. Its
/// figures (totals, MTU, diagnosis) always take in every transaction of a recorded connection.
package struct ConnectionLedger: Sendable {
    /// Connections recorded at most.
    package let connectionLimit: Int
    /// Transaction references listed at most, over all connections.
    package let referenceLimit: Int
    package static let defaultConnectionLimit = Summary.ConnectionTally.defaultLimit
    package static let defaultReferenceLimit = 65_536

    /// Transactions on connections first seen once `connectionLimit` were recorded (those are not listed).
    package private(set) var unlistedTransactions = 0
    private var slots: [Summary.ConnectionKey: Int] = [:]
    private var entries: [Entry] = []
    private var listed = 0

    /// One verdict's part of a connection.
    fileprivate struct VerdictPart: Sendable {
        var verdict: Verdict
        var count: Int
        var time: Int64
        /// The longest transaction's time and diagnosis.
        var longest: Int64
        var example: Diagnosis
    }

    fileprivate struct Entry: Sendable {
        var record: ConnectionRecord
        /// When the snapshot behind `record.totals` and `record.pathMTU` was taken (its transaction's end, wall µs).
        var factsAt: Int64 = .min
        var verdicts: [VerdictPart] = []
    }

    package init(connectionLimit: Int = ConnectionLedger.defaultConnectionLimit,
                referenceLimit: Int = ConnectionLedger.defaultReferenceLimit) {
        self.connectionLimit = max(1, connectionLimit)
        self.referenceLimit = max(0, referenceLimit)
    }

    /// The ledger of `tasks`.
    package init(_ tasks: [TaskRecord]) {
        self.init()
        for t in tasks.indices { add(tasks[t]) }
    }

    /// Connections recorded now (at most `connectionLimit`) and references listed (at most `referenceLimit`).
    package var retained: (connections: Int, references: Int) { (entries.count, listed) }

    /// Takes a finished task's transactions into account, reading them in place.
    package mutating func add(_ task: TaskRecord) {
        task.transactions.withUnsafeBufferPointer { list in
            for x in list.indices { add(list[x], reference: .init(task: task.index, transaction: x)) }
        }
    }

    private mutating func add(_ tx: TransactionMetrics, reference: ConnectionRecord.TransactionReference) {
        guard let key = Summary.ConnectionKey(tx) else { return }
        let start = tx.timeline.connectStart ?? tx.timeline.requestStart ?? tx.timeline.fetchStart
        let end = tx.timeline.responseEnd ?? tx.timeline.requestEnd ?? start
        let slot: Int
        if let known = slots[key] {
            slot = known
        } else {
            guard entries.count < connectionLimit else {
                unlistedTransactions += 1
                return
            }
            slot = entries.count
            slots[key] = slot
            entries.append(Entry(record: ConnectionRecord(
                connectionId: key.id, localAddress: key.localAddress, localPort: key.localPort,
                remoteAddress: key.remoteAddress, remotePort: key.remotePort, networkProtocolName: tx.networkProtocolName,
                firstUsedAt: start, lastUsedAt: end, transactionCount: 0, transactions: [], shared: false,
                handshakeRTT: nil, pathMTU: nil, totals: nil, diagnosis: nil)))
        }
        entries[slot].take(tx, reference: reference, start: start, end: end, listing: listed < referenceLimit)
        if listed < referenceLimit { listed += 1 }
    }

    /// The connections recorded, in the order they were first used (then by local port), each transaction list in
    /// task order.
    package var records: [ConnectionRecord] {
        entries.map { $0.finished }.sorted { ($0.firstUsedAt, $0.localPort) < ($1.firstUsedAt, $1.localPort) }
    }
}

extension ConnectionLedger.Entry {
    mutating func take(_ tx: TransactionMetrics, reference: ConnectionRecord.TransactionReference, start: Int64,
                       end: Int64, listing: Bool) {
        record.transactionCount += 1
        if listing { record.transactions.append(reference) }
        record.firstUsedAt = min(record.firstUsedAt, start)
        record.lastUsedAt = max(record.lastUsedAt, end)
        if record.networkProtocolName == nil { record.networkProtocolName = tx.networkProtocolName }
        if let tcp = tx.tcp {
            if tcp.shared { record.shared = true }
            if let rtt = tcp.handshakeRTT { record.handshakeRTT = rtt }
            // The latest snapshot of the connection holds its totals: counters only grow over its life.
            if end >= factsAt {
                factsAt = end
                record.pathMTU = tcp.pathMTU
                if let totals = tx.connectionTotals { record.totals = totals }
            }
        }
        guard let diagnosis = tx.diagnosis else { return }
        let time = tx.phases.total
        if let i = verdicts.firstIndex(where: { $0.verdict == diagnosis.verdict }) {
            verdicts[i].count += 1
            verdicts[i].time += time
            if time > verdicts[i].longest {
                verdicts[i].longest = time
                verdicts[i].example = diagnosis
            }
        } else {
            verdicts.append(.init(verdict: diagnosis.verdict, count: 1, time: time, longest: time, example: diagnosis))
        }
    }

    /// The record with its diagnosis: the verdict holding the most time (ties to the name first in order).
    var finished: ConnectionRecord {
        var done = record
        done.transactions.sort { ($0.task, $0.transaction) < ($1.task, $1.transaction) }
        let total = verdicts.reduce(Int64(0)) { $0 + $1.time }
        if let top = verdicts.max(by: { ($0.time, $1.verdict.rawValue) < ($1.time, $0.verdict.rawValue) }) {
            done.diagnosis = ConnectionRecord.Verdict(
                verdict: top.verdict, share: total > 0 ? Double(top.time) / Double(total) : 1,
                transactions: top.count, example: top.example)
        }
        return done
    }
}
