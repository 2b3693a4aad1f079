import Foundation
import WirelensCore
import WirelensStore

/// Compares a check's recent window of history with the window before it, phase by phase, and flags regressions.
///
/// A pure function over stored entries: `wirelens history` feeds it rows from the database, the tests feed it
/// recorded rows.
package struct HistoryComparison: Sendable, Equatable {
    /// One phase's figures in the two windows.
    package struct PhaseRow: Sendable, Equatable {
        package var phase: String
        /// Statistics in ms over the runs in which the phase happened; nil when it never did.
        package var current: PhaseStats?
        package var previous: PhaseStats?
        /// True when the phase got markedly slower (see `Rule`).
        package var regressed: Bool
    }

    /// One check's comparison.
    package struct CheckRow: Sendable, Equatable {
        package var check: String
        package var currentRuns: Int
        package var previousRuns: Int
        package var currentFailures: Int
        package var previousFailures: Int
        package var phases: [PhaseRow]
        /// True when a phase regressed or the failure rate rose.
        package var regressed: Bool {
            phases.contains(where: \.regressed) || failureRateRose
        }
        /// True when the share of failed runs grew by more than 10 percentage points.
        package var failureRateRose: Bool {
            guard currentRuns > 0, previousRuns > 0 else { return false }
            return Double(currentFailures) / Double(currentRuns) > Double(previousFailures) / Double(previousRuns) + 0.1
        }
    }

    /// When a phase counts as regressed: its p50 or p90 grew by `ratio` and by at least `floorMs`, with at least
    /// `minimumRuns` runs in each window.
    package struct Rule: Sendable, Equatable {
        package var ratio: Double = 1.5
        package var floorMs: Double = 5
        package var minimumRuns = 3

        package init(ratio: Double = 1.5, floorMs: Double = 5, minimumRuns: Int = 3) {
            self.ratio = ratio
            self.floorMs = floorMs
            self.minimumRuns = minimumRuns
        }

        /// True when `current` is markedly worse than `previous`.
        package func regressed(current: PhaseStats, previous: PhaseStats) -> Bool {
            guard current.count >= minimumRuns, previous.count >= minimumRuns else { return false }
            func worse(_ now: Double, _ before: Double) -> Bool { now >= before * ratio && now - before >= floorMs }
            return worse(current.p50, previous.p50) || worse(current.p90, previous.p90)
        }
    }

    /// The window's end (µs) and length (µs).
    package var windowEnd: Int64
    package var window: Int64
    package var checks: [CheckRow]

    /// Compares `[end - window, end)` with `[end - 2·window, end - window)` for every check in `entries`
    /// (or only `check`), checks in name order.
    package static func compare(_ entries: [HistoryEntry], check: String? = nil, end: Int64, window: Int64,
                               rule: Rule = Rule()) -> HistoryComparison {
        let start = end - window
        let previousStart = start - window
        var byCheck: [String: (current: [HistoryEntry], previous: [HistoryEntry])] = [:]
        for entry in entries where check == nil || entry.check == check {
            if entry.startedAt >= start && entry.startedAt < end {
                byCheck[entry.check, default: ([], [])].current.append(entry)
            } else if entry.startedAt >= previousStart && entry.startedAt < start {
                byCheck[entry.check, default: ([], [])].previous.append(entry)
            }
        }
        let rows = byCheck.keys.sorted().map { name -> CheckRow in
            let (current, previous) = byCheck[name] ?? ([], [])
            let phases = HistoryEntry.phaseNames.compactMap { phase -> PhaseRow? in
                let now = stats(current, phase)
                let before = stats(previous, phase)
                guard now != nil || before != nil else { return nil }
                let regressed = now.flatMap { n in before.map { rule.regressed(current: n, previous: $0) } } ?? false
                return PhaseRow(phase: phase, current: now, previous: before, regressed: regressed)
            }
            return CheckRow(check: name, currentRuns: current.count, previousRuns: previous.count,
                            currentFailures: current.filter { !$0.passed }.count,
                            previousFailures: previous.filter { !$0.passed }.count, phases: phases)
        }
        return HistoryComparison(windowEnd: end, window: window, checks: rows)
    }

    /// Compares every check named, one at a time: `entries` reads one check's runs (since the window before), so
    /// only one check's runs are held at once, however many checks and runs the history keeps. Checks in name
    /// order, as `compare(_:check:end:window:rule:)` orders them.
    package static func compare(checks names: [String], end: Int64, window: Int64, rule: Rule = Rule(),
                               entries: (String) throws -> [HistoryEntry]) rethrows -> HistoryComparison {
        var rows: [CheckRow] = []
        for name in names.sorted() {
            rows += compare(try entries(name), check: name, end: end, window: window, rule: rule).checks
        }
        return HistoryComparison(windowEnd: end, window: window, checks: rows)
    }

    /// A phase's statistics in ms over the entries in which it happened.
    static func stats(_ entries: [HistoryEntry], _ phase: String) -> PhaseStats? {
        PhaseStats(entries.compactMap { $0.phase(named: phase).map { Double($0) / 1000 } })
    }

    /// The comparison as a table for people.
    package func render() -> String {
        let length = DurationText.span(micros: window)
        var out = "window: the last \(length) against the \(length) before\n"
        if checks.isEmpty { return out + "no check results in these windows\n" }
        func ms(_ value: Double?) -> String { value.map { Format.fixed($0, digits: 1) } ?? "-" }
        for row in checks {
            out += "\n\(row.check): \(row.currentRuns) runs (\(row.currentFailures) failed) against \(row.previousRuns) (\(row.previousFailures) failed)"
            out += row.failureRateRose ? "  REGRESSION: more failures\n" : "\n"
            out += "  phase      p50 ms   p90 ms   before p50   before p90\n"
            for phase in row.phases {
                let name = phase.phase.padding(toLength: 9, withPad: " ", startingAt: 0)
                let cols = [ms(phase.current?.p50), ms(phase.current?.p90), ms(phase.previous?.p50), ms(phase.previous?.p90)]
                let widths = [8, 8, 12, 12]
                let text = zip(cols, widths).map { String(repeating: " ", count: max(0, $1 - $0.count)) + $0 }.joined(separator: " ")
                out += "  \(name)\(text)\(phase.regressed ? "  REGRESSION" : "")\n"
            }
        }
        return out
    }
}
