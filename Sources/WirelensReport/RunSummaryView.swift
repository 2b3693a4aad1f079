import WirelensCore

/// The text view of a run with many tasks: outcome and throughput, a phase percentile table,
/// connection reuse, status codes, errors and protocols, all taken from the report's `Summary`.
struct RunSummaryView {
    let style: ANSIStyle

    private static let countWidth = 7
    private static let statWidth = 10

    /// The lines of the view.
    func lines(for report: Report) -> [String] {
        let s = report.summary
        var out: [String] = []
        let failed = s.failed > 0 ? style.paint("\(s.failed) failed", .red) : "0 failed"
        out.append("  " + TextLayout.padRight("Tasks", ReportText.keyWidth) + "\(s.succeeded) ok, " + failed
                   + " of \(s.tasks) (\(ReportText.count(s.transactions, "transaction")))")
        out += ReportText.keyValue("Wall time", "\(ReportText.duration(ms: s.wallTimeMs)) "
                                   + "(\(Format.fixed(s.tasksPerSecond, digits: 2)) tasks/s)")
        out += ReportText.keyValue("Upload", "\(ByteSize.format(s.requestBodyBytes)) at "
                                   + "\(ByteSize.formatRate(s.uploadBytesPerSecond)) over the wall time")
        out += ReportText.keyValue("Download", "\(ByteSize.format(s.responseBodyBytes)) at "
                                   + "\(ByteSize.formatRate(s.downloadBytesPerSecond)) over the wall time")
        out.append("")
        out += phaseTable(s.phases)
        out.append("")
        let c = s.connections
        out += ReportText.keyValue("Connections", "\(c.opened) opened, \(c.reused) reused, \(c.distinct) distinct, "
                                   + "at most \(c.maxOpenAtOnce) open at once")
        let statuses = s.statusCodes.sorted { (Int($0.key) ?? 0, $0.key) < (Int($1.key) ?? 0, $1.key) }
        out += ReportText.keyList("Status codes", statuses.map { "\(TextLayout.sanitize($0.key)) (\($0.value))" })
        let errors = s.errors.sorted { $0.key < $1.key }
        out += ReportText.keyList("Errors", errors.map { "\(TextLayout.sanitize($0.key)) (\($0.value))" },
                                  style: style, tone: .red)
        let protocols = s.protocols.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        out += ReportText.keyList("Protocols", protocols.map { "\(TextLayout.sanitize($0.key)) (\($0.value))" })
        out += whyLines(s)
        return out
    }

    /// The verdicts, the one holding the most time first with the sentence of its longest transaction.
    func whyLines(_ s: Summary) -> [String] {
        guard let verdicts = s.verdicts, !verdicts.isEmpty else { return [] }
        let total = verdicts.values.reduce(0) { $0 + $1.timeMs }
        let ordered = verdicts.sorted { ($0.value.timeMs, $1.key) > ($1.value.timeMs, $0.key) }
        var out = ReportText.keyList("Verdicts", ordered.map { name, stats in
            "\(name) (\(stats.transactions), \(Format.fixed(stats.timeMs / max(total, 1e-9) * 100, digits: 0))% of the time)"
        })
        if let leading = ordered.first {
            out += ReportText.keyValue("Why", "\(leading.key): \(TextLayout.sanitize(leading.value.example))")
        }
        return out
    }

    /// The phases (rows) by count, p50, p90, p99 and max in ms; a phase with no values shows "—".
    func phaseTable(_ stats: [String: PhaseStats]) -> [String] {
        let labelWidth = WaterfallPhase.labelWidth
        var out = ["  " + TextLayout.padRight("Phase (ms)", labelWidth)
            + TextLayout.padLeft("count", Self.countWidth)
            + ["p50", "p90", "p99", "max"].map { TextLayout.padLeft($0, Self.statWidth) }.joined()]
        out[0] = style.paint(out[0], .bold)
        let rows = WaterfallPhase.allCases.map { ($0.label, $0.rawValue) } + [("Total", "total")]
        for (label, name) in rows {
            var line = "  " + TextLayout.padRight(label, labelWidth)
            if let stat = stats[name] {
                // A count as wide as its column (a million transactions) keeps a space after the label.
                let count = "\(stat.count)"
                line += (count.count >= Self.countWidth ? " " : "") + TextLayout.padLeft(count, Self.countWidth)
                line += [stat.p50, stat.p90, stat.p99, stat.max]
                    .map { TextLayout.padLeft(ReportText.millis($0), Self.statWidth) }.joined()
            } else {
                line += TextLayout.padLeft("0", Self.countWidth)
                    + String(repeating: TextLayout.padLeft("—", Self.statWidth), count: 4)
            }
            out.append(line)
        }
        return out
    }
}
