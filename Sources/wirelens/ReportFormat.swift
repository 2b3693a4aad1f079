import ArgumentParser

/// The formats `--format` accepts.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case json
    case text
}
