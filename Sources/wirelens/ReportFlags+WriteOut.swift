import WirelensCore

extension ReportFlags {
    /// Writes the report and the closing messages as `deliver` does, except that with `-w` (`writingOut`) stdout
    /// carries the write-out only: the report is written to `--report FILE` when there is one, else not at all.
    func deliver(_ report: Report, outcome: ExitStatus? = nil, writingOut: Bool) -> Int32 {
        guard writingOut, reportPath == nil else { return deliver(report, outcome: outcome) }
        return close(report, outcome: outcome, failures: TaskFailures(report.tasks))
    }
}
