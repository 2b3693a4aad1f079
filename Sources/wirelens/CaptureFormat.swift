import ArgumentParser

/// The formats `capture analyze --format` accepts: HAR and HTML describe probe transactions, not a capture.
enum CaptureFormat: String, ReportFormatChoice {
    case json
    case text

    static let help = ArgumentHelp("Report format: json (wirelens.capture/1) or text.")

    var reportFormat: ReportFormat {
        switch self {
        case .json: .json
        case .text: .text
        }
    }
}
