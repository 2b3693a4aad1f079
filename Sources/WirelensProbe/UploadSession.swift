import WirelensCore

/// Runs a segmented upload and assembles its report: every attempt a task, plus the `upload` section.
public enum UploadSession {
    /// Runs the upload and returns the report and the outcome; `interrupted` tells whether a signal stopped it.
    public static func run(_ uploader: SegmentUploader, interrupted: @Sendable () -> Bool)
        async -> (report: Report, outcome: SegmentUploader.Outcome) {
        let started = MonotonicClock.wallMicros()
        let outcome = await uploader.run()
        let ended = MonotonicClock.wallMicros()
        let libcurl = Libcurl.description
        let engine = uploader.engine
        let configuration = RunConfiguration(urls: [uploader.plan.url], method: "PUT",
                                             body: .file(path: uploader.plan.filePath, size: uploader.plan.fileSize),
                                             repeatCount: 1, options: engine.options)
        var report = Report(libcurl: libcurl, command: "upload", startedAt: started, endedAt: ended,
                            interrupted: interrupted(), configuration: configuration, caveats: [], tasks: outcome.tasks)
        report.upload = outcome.section
        report.caveats = Caveat.applicable(libcurl: libcurl, options: engine.options, hasUploads: true,
                                           protocolsUsed: Set(report.summary.protocols.keys))
        return (report, outcome)
    }
}
