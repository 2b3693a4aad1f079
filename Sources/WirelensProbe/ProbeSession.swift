import WirelensCore

/// Runs a checked plan on an engine and assembles the report.
public enum ProbeSession {
    /// Runs the plan's tasks and returns the report; `interrupted` tells whether `engine.cancel()` was called.
    public static func run(_ plan: ProbePlan, engine: Engine, command: String = "probe",
                           interrupted: @Sendable () -> Bool,
                           onTaskFinished: (@Sendable (TaskRecord) -> Void)? = nil) async -> Report {
        let started = MonotonicClock.wallMicros()
        let records = await engine.run(plan.round, rounds: plan.repeatCount, onTaskFinished: onTaskFinished)
        return report(command: command, engine: engine, startedAt: started, interrupted: interrupted(),
                      urls: plan.urls, method: plan.method, body: plan.body, repeatCount: plan.repeatCount,
                      tasks: records)
    }

    /// The report of tasks an engine ran: the redacted configuration, libcurl's description, the summary and the
    /// caveats that apply; it ends now.
    public static func report(command: String, engine: Engine, startedAt: Int64, interrupted: Bool, urls: [String],
                              method: String, body: BodySource, repeatCount: Int, tasks: [TaskRecord]) -> Report {
        let ended = MonotonicClock.wallMicros()
        let libcurl = Libcurl.description
        let configuration = RunConfiguration(urls: urls, method: method, body: body, repeatCount: repeatCount,
                                             options: engine.options)
        var report = Report(libcurl: libcurl, command: command, startedAt: startedAt, endedAt: ended,
                            interrupted: interrupted, configuration: configuration, caveats: [], tasks: tasks)
        // The summary already counted the protocols used; the HTTP/2 caveat depends on them.
        report.caveats = Caveat.applicable(libcurl: libcurl, options: engine.options, hasUploads: body != .none,
                                           protocolsUsed: Set(report.summary.protocols.keys))
        return report
    }
}
