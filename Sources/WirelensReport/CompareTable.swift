import WirelensCompare
import WirelensCore

/// The summary tables of a comparison as rows of cells, shared by the text and the HTML renderers: one row per
/// configuration with its throughput, speed-up, latency, connections and errors; one with its phase medians.
package struct CompareTable: Sendable, Equatable {
    /// The column titles.
    package var headers: [String]
    /// The cells, one array per configuration.
    package var rows: [[String]]
    /// Which columns hold numbers (aligned right).
    package var numeric: [Bool]

    /// The main table: mode, limit, throughput, speed-up (min–max over repetitions), wall time, latency
    /// p50/p90/p99, connections opened, reuse, errors and the leading verdict with its share of the time.
    package static func results(_ document: CompareDocument) -> CompareTable {
        let headers = ["Mode", "Limit", "Throughput", "Speed-up", "Spread", "Wall", "p50 ms", "p90 ms", "p99 ms",
                       "Conns", "Reuse", "Errors", "Verdict"]
        let rows = document.results.map { r -> [String] in
            let speedup = r.speedup.map { "\(Format.fixed($0.median, digits: 2))x" } ?? "—"
            let spread = r.speedup.map { "\(Format.fixed($0.min, digits: 2))–\(Format.fixed($0.max, digits: 2))" } ?? "—"
            let latency = [r.latencyMs?.p50, r.latencyMs?.p90, r.latencyMs?.p99].map { $0.map { Format.fixed($0, digits: 1) } ?? "—" }
            let mark = r.failure == nil ? "" : "\(failedMark) "
            let errors = r.failure.map { "\(failedMark) \($0.failedTasks)/\($0.tasks) failed" } ?? "\(r.errors)"
            return [r.mode.rawValue, r.limit.display, mark + CompareRecommendation.rate(r.throughput, r.throughputUnit),
                    speedup, spread, ReportText.duration(ms: r.wallMs)] + latency
                + [Format.fixed(r.connectionsOpened, digits: r.connectionsOpened.rounded() == r.connectionsOpened ? 0 : 1),
                   "\(Format.fixed(r.reuseRatio * 100, digits: 0))%", errors, verdict(r.leadingVerdict)]
        }
        return CompareTable(headers: headers, rows: rows, numeric: [false, false] + Array(repeating: true, count: 10) + [false])
    }

    /// The mark of a configuration with failed tasks, on its row and its failure line.
    package static let failedMark = "✗"

    /// One line per configuration with failed tasks ("✗ h1 @ 4: 8/8 tasks failed: connect: …"), so that its
    /// figures are not read as a measurement; empty when every task succeeded.
    package static func failureLines(_ document: CompareDocument) -> [String] {
        document.results.compactMap { r in
            r.failure.map { "\(failedMark) \(r.mode.rawValue) @ \(r.limit.display): \($0.description)" }
        }
    }

    /// "server-window 92%", or "—" without a verdict.
    static func verdict(_ lead: VerdictShare?) -> String {
        lead.map { "\($0.verdict.rawValue) \(Format.fixed($0.share * 100, digits: 0))%" } ?? "—"
    }

    /// The phase table: the median of each phase (ms) per configuration.
    package static func phases(_ document: CompareDocument) -> CompareTable {
        let names = ["queue", "connect", "tls", "send", "wait", "receive"]
        let headers = ["Mode", "Limit", "Queue", "Connect", "TLS", "Send", "Wait", "Receive"]
        let rows = document.results.map { r in
            [r.mode.rawValue, r.limit.display] + names.map { r.phaseMediansMs[$0].map { Format.fixed($0, digits: 1) } ?? "—" }
        }
        return CompareTable(headers: headers, rows: rows, numeric: [false, false] + Array(repeating: true, count: 6))
    }

    /// The table as padded text lines, two spaces between columns, the header first; a last text column is not
    /// padded (no trailing spaces).
    func textLines(style: ANSIStyle) -> [String] {
        let widths = headers.indices.map { c in ([headers[c]] + rows.map { $0[c] }).map(\.count).max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "  " + cells.indices.map { c in
                numeric[c] ? TextLayout.padLeft(cells[c], widths[c])
                    : c == cells.count - 1 ? cells[c] : TextLayout.padRight(cells[c], widths[c])
            }.joined(separator: "  ")
        }
        return [style.paint(line(headers), .bold)] + rows.map { line($0.map(TextLayout.sanitize)) }
    }
}
