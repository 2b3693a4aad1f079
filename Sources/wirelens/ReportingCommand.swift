import ArgumentParser

/// A command with the shared report flags, whose `-s` (without `-S`) keeps its run's error lines off stderr.
protocol ReportingCommand: RunnableCommand {
    associatedtype Format: ReportFormatChoice
    var report: ReportFlags<Format> { get }
}

extension ReportingCommand {
    /// True when the command line asked for no error lines (`-s` without `-S`).
    var silencesErrors: Bool { report.silencesErrors }
}

extension ProbeCommand: ReportingCommand {}
extension DownloadCommand: ReportingCommand {}
extension UploadCommand: ReportingCommand {}
extension CompareCommand: ReportingCommand {}
extension CaptureAnalyzeCommand: ReportingCommand {
    var report: ReportFlags<CaptureFormat> { output }
}
