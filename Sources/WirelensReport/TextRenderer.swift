import WirelensCore

/// Renders a report for a person at a terminal, laid out for 80 columns.
///
/// A run of one task is shown transaction by transaction, each with a waterfall of its phases;
/// a run of many tasks is shown as a summary with phase percentiles. Both end with the report's
/// caveats. Colour (ANSI SGR) is written only when `color` is true; otherwise the text holds no
/// escape byte at all, even when a server or libcurl sent one.
public struct TextRenderer: Sendable {
    /// Whether to colour the output with ANSI SGR sequences.
    public var color: Bool

    public init(color: Bool) {
        self.color = color
    }

    /// The report as text, ending with a newline.
    public func render(_ report: Report) -> String {
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
        lines += CaveatsView(style: style).lines(for: report.caveats)
        return lines.joined(separator: "\n") + "\n"
    }
}
