import ArgumentParser

/// The formats one command's `--format` accepts, each one of the report formats.
protocol ReportFormatChoice: ExpressibleByArgument, CaseIterable, Sendable {
    /// The default format.
    static var text: Self { get }
    /// The option's help.
    static var help: ArgumentHelp { get }
    /// The report format this choice writes.
    var reportFormat: ReportFormat { get }
}
