import WirelensCore
import WirelensProbe

/// Runs a segmented upload and assembles its report: every attempt a task, plus the `upload` section.
package enum UploadSession {
    /// Runs the upload and returns the report and the outcome; `interrupted` tells whether a signal stopped it.
    package static func run(_ uploader: SegmentUploader, interrupted: @Sendable () -> Bool)
        async -> (report: Report, outcome: SegmentUploader.Outcome) {
        let started = MonotonicClock.wallMicros()
        let outcome = await uploader.run()
        return (report(outcome, engine: uploader.engine, startedAt: started, interrupted: interrupted(),
                       url: uploader.plan.url, file: uploader.plan.filePath, size: uploader.plan.fileSize), outcome)
    }

    /// Runs an upload to an S3-compatible store and returns the report (every request a task) and the outcome.
    package static func run(_ upload: S3Upload, interrupted: @Sendable () -> Bool)
        async -> (report: Report, outcome: SegmentUploader.Outcome) {
        let started = MonotonicClock.wallMicros()
        let outcome = await upload.run()
        return (report(outcome, engine: upload.engine, startedAt: started, interrupted: interrupted(),
                       url: upload.objectURL, file: upload.filePath, size: upload.parts.fileSize), outcome)
    }

    private static func report(_ outcome: SegmentUploader.Outcome, engine: Engine, startedAt: Int64, interrupted: Bool,
                               url: String, file: String, size: Int64) -> Report {
        var report = ProbeSession.report(command: "upload", engine: engine, startedAt: startedAt,
                                         interrupted: interrupted, urls: [url], method: "PUT",
                                         body: .file(path: file, size: size), repeatCount: 1, tasks: outcome.tasks)
        report.upload = outcome.section
        report.upload?.notes = outcome.notes.isEmpty ? nil : outcome.notes
        report.upload?.explain(tasks: report.tasks)
        return report
    }
}
