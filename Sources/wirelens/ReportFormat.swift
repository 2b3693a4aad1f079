import ArgumentParser

/// The formats `--format` accepts.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case json
    case text
    /// HAR 1.2, one entry per transaction.
    case har
    /// One self-contained HTML page: a waterfall by connection, charts and the summary tables.
    case html
}
