import WirelensCore

/// A phase a check can bound with `max`: measured on the task's final transaction, `total` over the whole task.
package enum CheckPhase: String, Sendable, CaseIterable, Equatable {
    case dns
    case connect
    case tls
    /// Time to first byte: from the final transaction's start to its first response byte.
    case ttfb
    /// The whole task, redirects and retries included.
    case total

    /// The phase's duration in µs for a task, or nil when it did not happen.
    package func measure(_ record: TaskRecord) -> Int64? {
        if self == .total { return record.duration }
        guard let last = record.transactions.last else { return nil }
        switch self {
        case .dns: return last.phases.dns
        case .connect: return last.phases.connect
        case .tls: return last.phases.tls
        case .ttfb: return last.timeline.responseStart.map { $0 - last.timeline.fetchStart }
        case .total: return record.duration
        }
    }
}
