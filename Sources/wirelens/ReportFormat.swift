import ArgumentParser

/// The formats `--format` accepts.
enum ReportFormat: String, ReportFormatChoice {
    case json
    case text
    /// HAR 1.2, one entry per transaction.
    case har
    /// One self-contained HTML page: a waterfall by connection, charts and the summary tables.
    case html

    static let help = ArgumentHelp("Report format: json (indented up to 1000 tasks, compact beyond), text, har (HAR 1.2) or html (one self-contained page).")
    var reportFormat: ReportFormat { self }
}
