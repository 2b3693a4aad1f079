import WirelensCompare
import WirelensCore

/// Renders a comparison for a person at a terminal: what was compared, the results table, the phase medians
/// and one recommendation per mode.
package struct CompareTextRenderer: Sendable {
    /// Whether to colour the output with ANSI SGR sequences.
    package var color: Bool

    package init(color: Bool) {
        self.color = color
    }

    /// The comparison as text, ending with a newline.
    package func render(_ document: CompareDocument) -> String {
        let style = ANSIStyle(enabled: color)
        var lines: [String] = []
        if document.interrupted {
            lines.append(style.paint("Interrupted: the comparison covers the runs that finished.", .yellow))
            lines.append("")
        }
        lines += ReportText.keyValue("Compare", TextLayout.sanitize(document.url))
        lines += ReportText.keyValue("Workload", "\(document.workload), \(ReportText.count(document.repetitions, "repetition")) "
                                     + "interleaved")
        lines += ReportText.keyValue("Modes", document.modes.map { "\($0.rawValue) (\($0.about))" }.joined(separator: "; "))
        lines.append("")
        lines += CompareTable.results(document).textLines(style: style)
        lines += CompareTable.failureLines(document).map { "  " + style.paint(TextLayout.sanitize($0), .red) }
        lines.append("")
        lines.append(style.paint("Median of each phase (ms)", .bold))
        lines += CompareTable.phases(document).textLines(style: style)
        if !document.recommendations.isEmpty {
            lines.append("")
            lines.append(style.paint("Recommendation", .bold))
            for rec in document.recommendations {
                let head = rec.limit.map { "\(rec.mode.rawValue): limit \($0.display) "
                    + "(\(CompareRecommendation.rate(rec.throughput, document.results.first?.throughputUnit ?? "B/s")))" }
                    ?? rec.mode.rawValue
                lines += TextLayout.wrap(TextLayout.sanitize(head + ": " + rec.reason + "."), firstPrefix: "  • ",
                                         restPrefix: "    ")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
