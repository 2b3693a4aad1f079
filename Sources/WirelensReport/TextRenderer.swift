import WirelensCore

/// Renders a report for a person at a terminal, laid out for 80 columns.
///
/// A run of one task is shown transaction by transaction, each with a waterfall of its phases;
/// a run of many tasks is shown as a summary with phase percentiles. Both end with the caveats that change how a
/// number on the screen reads, one line each, or with every caveat in full when `allCaveats` is true. Colour (ANSI SGR) is written only when `color` is true; otherwise the text holds no
/// escape byte at all, even when a server or libcurl sent one.
package struct TextRenderer: Sendable {
    /// Whether to colour the output with ANSI SGR sequences.
    package var color: Bool
    /// Whether to end with every caveat's whole text (`--caveats`) rather than the brief lines that apply.
    package var allCaveats: Bool

    package init(color: Bool, allCaveats: Bool = false) {
        self.color = color
        self.allCaveats = allCaveats
    }

    /// The report as text, ending with a newline.
    package func render(_ report: Report) -> String {
        let style = ANSIStyle(enabled: color)
        var lines: [String] = []
        if report.interrupted {
            let note = "Interrupted: the run was stopped by a signal before it finished; this report covers the "
                + "\(ReportText.count(report.summary.tasks, "task")) that ended."
            lines += TextLayout.wrap(note, firstPrefix: "", restPrefix: "").map { style.paint($0, .yellow) }
            lines.append("")
        }
        // The summary counts the tasks: a report written as its run went on holds none of them, or its only one.
        if report.summary.tasks == 1, let task = report.tasks.first {
            lines += TaskDetailView(style: style).lines(for: task)
        } else {
            lines += RunSummaryView(style: style).lines(for: report)
        }
        if let upload = report.upload {
            lines.append("")
            lines += UploadView(style: style).lines(for: upload)
        }
        lines += CaveatsView(style: style, full: allCaveats).lines(for: report)
        return lines.joined(separator: "\n") + "\n"
    }
}
