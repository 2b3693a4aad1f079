/// How much of each transaction a probe report's document holds (`--detail`, the document's `detail`).
///
/// `standard` keeps what a reader of the report uses: the timestamps, the phases, the connection and its reuse, the
/// kernel's summary of the transfer and the verdict. `full` adds what is for debugging the measurement itself:
/// the timeline again as offsets from the task's start (`offsetsMs`, the timestamps minus the task's `startedAt`),
/// libcurl's raw timers (`curlTimersUs`) and the kernel's snapshots over the transfer (`tcp.samples`), whose summary
/// `tcp` holds either way. docs/report-schema.md lists each member and how to get a left-out one back.
public enum ReportDetail: String, Sendable, Codable, CaseIterable {
    case standard
    case full

    /// True when the document holds the members for debugging (`offsetsMs`, `curlTimersUs`, `tcp.samples`).
    public var keepsDebugMembers: Bool { self == .full }
}
