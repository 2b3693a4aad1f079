import WirelensConcurrency
import WirelensCore
import WirelensCurl

/// Runs a checked plan on an engine and assembles the report.
package enum ProbeSession {
    /// Runs the plan's tasks and returns the report; `interrupted` tells whether `engine.cancel()` was called.
    package static func run(_ plan: ProbePlan, engine: Engine, command: String = "probe",
                           interrupted: @Sendable () -> Bool,
                           onTaskFinished: (@Sendable (TaskRecord) -> Void)? = nil) async -> Report {
        let started = MonotonicClock.wallMicros()
        let records = await engine.run(plan.round, rounds: plan.repeatCount, onTaskFinished: onTaskFinished)
        return report(command: command, engine: engine, startedAt: started, interrupted: interrupted(),
                      urls: plan.urls, method: plan.method, body: plan.body, repeatCount: plan.repeatCount,
                      tasks: records)
    }

    /// A run whose tasks were handed over as they ended: its report and what its failed tasks decide.
    package struct Streamed {
        /// The report, summarised over every task; its `tasks` hold the run's only task when it had one, else none.
        package var report: Report
        package var failures: TaskFailures
    }

    /// Runs the plan's tasks, handing each to `consume` as it ends, so that what is held does not grow with the
    /// run: the tasks in flight, a few batches of finished ones on their way to `consume`, and the summary's
    /// bounded state (`Summary.Accumulator`).
    ///
    /// `begin` gets the report's head (no tasks; its configuration and start) before any task runs, and an error
    /// it throws ends the call before any task runs. `consume` runs on a thread of its own and gets the tasks in
    /// task order (`TaskOrder`: a task more than `TaskOrder.defaultLimit` tasks behind comes when it ends); the
    /// first error it throws cancels the run and is thrown here once the tasks in flight have ended. The engine
    /// must not have run tasks before (task indices start at 0). `listsConnections` false leaves the report's
    /// `connections` empty (for a reader that shows none: the text summary).
    package static func stream(_ plan: ProbePlan, engine: Engine, command: String = "probe",
                              interrupted: @Sendable () -> Bool, listsConnections: Bool = true,
                              begin: (Report) throws -> Void,
                              consume: @escaping (TaskRecord) throws -> Void) async throws -> Streamed {
        let started = MonotonicClock.wallMicros()
        func make(_ tasks: [TaskRecord], _ summary: Summary?, _ connections: [ConnectionRecord]?,
                  interrupted: Bool) -> Report {
            report(command: command, engine: engine, startedAt: started, interrupted: interrupted, urls: plan.urls,
                   method: plan.method, body: plan.body, repeatCount: plan.repeatCount, tasks: tasks, summary: summary,
                   connections: connections)
        }
        try begin(make([], nil, nil, interrupted: false))
        let gathered = Gathered(listsConnections: listsConnections)
        // Batches of 256 tasks: one hand-off per batch, and at most six batches (a few MB) on their way.
        let behind = WriteBehind<TaskRecord>(name: "wirelens-report", batchWeight: 256) { record in
            gathered.add(record)
            do { try gathered.order.add(record, release: consume) } catch {
                engine.cancel()
                throw error
            }
        }
        _ = await engine.run(plan.round, rounds: plan.repeatCount, keepsRecords: false) { behind.add($0) }
        try behind.finish()
        try gathered.order.flush(release: consume)
        let summary = gathered.accumulator.summary
        let only = summary.tasks == 1 ? gathered.first.map { [$0] } ?? [] : []
        return Streamed(report: make(only, summary, gathered.connections?.records ?? [], interrupted: interrupted()),
                        failures: gathered.accumulator.failures)
    }

    /// The summary and the connections of the tasks seen, the first of them, and the tasks waiting for their turn;
    /// touched by the consuming thread only, then by the caller once it has been joined.
    private final class Gathered {
        var accumulator = Summary.Accumulator()
        /// Nil when the report's reader shows no connections (the text summary).
        var connections: ConnectionLedger?
        var first: TaskRecord?
        var order = TaskOrder()

        init(listsConnections: Bool) {
            connections = listsConnections ? ConnectionLedger() : nil
        }

        func add(_ record: TaskRecord) {
            accumulator.add(record)
            connections?.add(record)
            if first == nil { first = record }
        }
    }

    /// The report of tasks an engine ran: the redacted configuration, libcurl's description, the summary (given,
    /// or built from the tasks), its connections (likewise) and the caveats that apply; it ends now.
    package static func report(command: String, engine: Engine, startedAt: Int64, interrupted: Bool, urls: [String],
                              method: String, body: BodySource, repeatCount: Int, tasks: [TaskRecord],
                              summary: Summary? = nil, connections: [ConnectionRecord]? = nil) -> Report {
        let ended = MonotonicClock.wallMicros()
        let libcurl = Libcurl.description
        let configuration = RunConfiguration(urls: urls, method: method, body: body, repeatCount: repeatCount,
                                             options: engine.options)
        var report = Report(libcurl: libcurl, command: command, startedAt: startedAt, endedAt: ended,
                            interrupted: interrupted, configuration: configuration, caveats: [], tasks: tasks,
                            summary: summary, connections: connections)
        // The summary already counted the protocols used; the HTTP/2 caveat depends on them.
        report.caveats = libcurl.caveats(options: engine.options, hasUploads: body != .none,
                                         protocolsUsed: Set(report.summary.protocols.keys))
        return report
    }
}
