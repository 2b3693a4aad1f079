import WirelensCore
import WirelensProbe

/// Runs a segmented upload and assembles its report: every attempt a task, plus the `upload` section.
public enum UploadSession {
    /// Runs the upload and returns the report and the outcome; `interrupted` tells whether a signal stopped it.
    public static func run(_ uploader: SegmentUploader, interrupted: @Sendable () -> Bool)
        async -> (report: Report, outcome: SegmentUploader.Outcome) {
        let started = MonotonicClock.wallMicros()
        let outcome = await uploader.run()
        var report = ProbeSession.report(
            command: "upload", engine: uploader.engine, startedAt: started, interrupted: interrupted(),
            urls: [uploader.plan.url], method: "PUT",
            body: .file(path: uploader.plan.filePath, size: uploader.plan.fileSize), repeatCount: 1,
            tasks: outcome.tasks)
        report.upload = outcome.section
        report.upload?.explain(tasks: report.tasks)
        return (report, outcome)
    }
}
