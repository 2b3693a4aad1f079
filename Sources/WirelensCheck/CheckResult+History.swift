import WirelensCore
import WirelensStore

extension CheckResult {
    /// The result as a history row: the outcome and the final transaction's phases, from `vantage` when given.
    package func historyEntry(vantage: String? = nil) -> HistoryEntry {
        var entry = HistoryEntry(check: name, startedAt: startedAt, passed: passed, vantage: vantage)
        guard let record else {
            entry.errorClass = "setup"
            return entry
        }
        entry.statusCode = record.statusCode
        entry.errorClass = record.error?.errorClass.rawValue
        entry.total = record.duration
        entry.retries = record.retries
        if let last = record.transactions.last {
            entry.queue = last.phases.queue
            entry.dns = last.phases.dns
            entry.connect = last.phases.connect
            entry.tls = last.phases.tls
            entry.send = last.phases.send
            entry.wait = last.phases.wait
            entry.receive = last.phases.receive
            entry.ttfb = CheckPhase.ttfb.measure(record)
            entry.reused = last.reusedConnection
            entry.uploadSpeed = last.uploadSpeed
            entry.downloadSpeed = last.downloadSpeed
        }
        return entry
    }
}
