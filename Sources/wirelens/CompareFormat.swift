import ArgumentParser

/// The formats `compare --format` accepts: a comparison has no HAR form.
enum CompareFormat: String, ReportFormatChoice {
    case text
    case json
    /// One self-contained page: the comparison's tables and charts.
    case html

    static let help = ArgumentHelp("Report format: text, json (wirelens.compare/1) or html (one self-contained page).")

    var reportFormat: ReportFormat {
        switch self {
        case .text: .text
        case .json: .json
        case .html: .html
        }
    }
}
