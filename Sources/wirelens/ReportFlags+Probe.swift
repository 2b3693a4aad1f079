import Foundation
import WirelensCore
import WirelensProbe
import WirelensReport

extension ReportFlags {
    /// Whether a probe run of `tasks` tasks is reported as it goes (`deliver(streaming:…)`): the text summary,
    /// and JSON of more than `prettyJSONLimit` tasks (written compact). HAR and HTML keep every task.
    func streams(tasks: Int) -> Bool {
        format == .text || (format == .json && tasks > Self.prettyJSONLimit)
    }

    /// Runs a probe plan and writes its report, holding no more than the tasks in flight and the summary's
    /// bounded state whatever the run's length; returns the exit code.
    ///
    /// Text: the summary (or the only task's detail) once the run is over. JSON: each task is written as it
    /// ends (`JSONRenderer.Stream`); a report that cannot be written cancels the run (exit code 3), and as its
    /// tasks are gone, nothing is written to stdout instead.
    /// - Parameter runEnded: called once the tasks have ended, before the rest of the report is written (to stop
    ///   a progress display).
    /// - Parameter each: gets every task, in task order, before the report does (`-w`'s line); with it, a text report
    ///   is written only to `--report FILE`, as stdout carries those lines.
    /// - Parameter detail: what each transaction of a JSON report holds (`--detail`).
    func deliver(streaming plan: ProbePlan, detail: ReportDetail, engine: Engine, interrupted: @Sendable () -> Bool,
                 runEnded: () async -> Void, each: ((TaskRecord) -> Void)? = nil) async -> Int32 {
        guard format == .json else {
            do {
                let streamed = try await ProbeSession.stream(plan, engine: engine, interrupted: interrupted,
                                                             listsConnections: false, begin: { _ in }, consume: { each?($0) })
                await runEnded()
                if each != nil, reportPath == nil { return close(streamed.report, failures: streamed.failures) }
                var report = streamed.report
                report.detail = detail
                return deliver(report, failures: streamed.failures)
            } catch {
                await runEnded()
                Console.error("could not summarise the run: \(error)")
                return ExitStatus.internalError.rawValue
            }
        }
        let name = reportPath ?? "stdout"
        let destination: ReportFile.Destination
        do {
            destination = try reportPath.map { try ReportFile.Destination(path: $0) } ?? .standardOutput()
        } catch {
            Console.error("cannot write report '\(name)': \(error)")
            return ExitStatus.localFile.rawValue
        }
        let writer = ProbeJSONWriter(destination: destination)
        do {
            let streamed = try await ProbeSession.stream(plan, engine: engine, interrupted: interrupted,
                                                         begin: { head in
                                                             var head = head
                                                             head.detail = detail
                                                             try writer.begin(head)
                                                         }, consume: { record in
                                                             each?(record)
                                                             try writer.add(record)
                                                         })
            await runEnded()
            try writer.finish(streamed.report)
            return close(streamed.report, failures: streamed.failures)
        } catch let error as ReportFile.WriteError {
            await runEnded()
            destination.discard()
            Console.error("cannot write report '\(name)': \(error); the run was stopped")
            return ExitStatus.localFile.rawValue
        } catch {
            await runEnded()
            destination.discard()
            Console.error("could not encode the report: \(error)")
            return ExitStatus.internalError.rawValue
        }
    }
}
