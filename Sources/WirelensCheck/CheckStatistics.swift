import WirelensCore

/// What `serve` accumulates per check between scrapes: runs, failures by reason, skipped ticks and the histograms of
/// the total time and of each phase, so that percentiles over any window come from Prometheus' `histogram_quantile`.
package struct CheckStatistics: Sendable, Equatable {
    /// Runs that ended with a result (scheduled and `/probe`).
    package private(set) var runs: UInt64 = 0
    /// Failed runs by reason (`CheckStatistics.reason`).
    package private(set) var failures: [String: UInt64] = [:]
    /// Ticks skipped because the check's previous run was still going.
    package private(set) var skipped: UInt64 = 0
    /// The whole task's duration.
    package private(set) var total: Histogram
    /// Per blackbox phase (`PrometheusRenderer.phaseDurations`), made at its first observation: a phase that never
    /// happened has no histogram.
    package private(set) var phases: [String: Histogram] = [:]

    /// Empty statistics whose histograms have these bucket bounds (µs).
    package init(bounds: [Int64]) {
        total = Histogram(bounds: bounds)
    }

    /// Counts one result.
    package mutating func add(_ result: CheckResult) {
        runs += 1
        if let reason = Self.reason(result) { failures[reason, default: 0] += 1 }
        guard let record = result.record else { return }
        total.observe(record.duration)
        for (phase, micros) in PrometheusRenderer.phaseDurations(record) {
            phases[phase, default: Histogram(bounds: total.bounds)].observe(micros)
        }
    }

    /// Counts ticks the check skipped.
    package mutating func skip(_ ticks: Int) {
        skipped += UInt64(max(0, ticks))
    }

    /// Why a run failed, nil when it passed: the task's error class (`connect`, `timeout.total`, `http`…), `setup`
    /// when it could not run at all, `assertion` when the task went through but an assertion did not hold.
    package static func reason(_ result: CheckResult) -> String? {
        guard !result.passed else { return nil }
        guard let record = result.record else { return "setup" }
        return record.error?.errorClass.rawValue ?? "assertion"
    }
}
