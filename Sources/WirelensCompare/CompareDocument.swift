import WirelensCore

/// The result of `wirelens compare`: the `wirelens.compare/1` document behind `--format json`, embedding
/// every run's `wirelens.report/1` report (docs/compare-schema.md).
public struct CompareDocument: Sendable, Equatable, Codable {
    /// The schema identifier written in every compare document.
    public static let schemaID = "wirelens.compare/1"

    public var schema = CompareDocument.schemaID
    public var tool = Report.Tool()
    /// The URL compared against (redacted).
    public var url: String
    /// The workload as written (`upload:256KiBx8`).
    public var workload: String
    public var modes: [CompareMode]
    public var limits: [CompareLimit]
    public var repetitions: Int
    /// RFC 3339 instants of the first run's start and the last run's end.
    public var startedAt: String
    public var endedAt: String
    /// True when a signal stopped the comparison; the results cover the runs that finished.
    public var interrupted: Bool
    /// One per configuration, modes outermost, limits in the order given.
    public var results: [CompareResult]
    /// One per mode.
    public var recommendations: [CompareRecommendation]
    /// Every run in the order it ran (interleaved: A B C A B C …).
    public var runs: [Run]

    /// One run of one configuration.
    public struct Run: Sendable, Equatable, Codable {
        public var mode: CompareMode
        /// The limit's label.
        public var limit: String
        /// 0-based.
        public var repetition: Int
        public var report: Report
        /// The share of the machine's CPU time (every CPU, `/proc/stat`) that was busy during the run; nil when not
        /// read.
        public var machineBusyShare: Double?
        /// The CPU time the comparing process spent over the run's wall time (every thread: 1.0 is one CPU's worth);
        /// nil when not read.
        public var clientCPUShare: Double?

        public init(mode: CompareMode, limit: String, repetition: Int, report: Report, machineBusyShare: Double? = nil,
                    clientCPUShare: Double? = nil) {
            self.mode = mode
            self.limit = limit
            self.repetition = repetition
            self.report = report
            self.machineBusyShare = machineBusyShare
            self.clientCPUShare = clientCPUShare
        }
    }

    /// Builds the document from the runs: aggregates each configuration, adds speed-ups and recommendations.
    public init(url: String, workload: CompareWorkload, modes: [CompareMode], limits: [CompareLimit], repetitions: Int,
                startedAt: Int64, endedAt: Int64, interrupted: Bool, runs: [Run]) {
        self.url = Redactor.url(url)
        self.workload = workload.text
        self.modes = modes
        self.limits = limits
        self.repetitions = repetitions
        self.startedAt = WallClock.iso8601(micros: startedAt)
        self.endedAt = WallClock.iso8601(micros: endedAt)
        self.interrupted = interrupted
        self.runs = runs
        let measured = CompareConfiguration.all(modes: modes, limits: limits).compactMap { c -> CompareResult? in
            let mine = runs.filter { $0.mode == c.mode && $0.limit == c.limit.label }
            guard !mine.isEmpty else { return nil }
            return CompareResult.measure(mode: c.mode, limit: c.limit, movesBytes: workload.movesBytes,
                                         runs: mine.map(\.report), machineBusy: mine.compactMap(\.machineBusyShare),
                                         clientCPU: mine.compactMap(\.clientCPUShare))
        }
        results = CompareResult.withSpeedups(measured)
        recommendations = CompareRecommendation.all(results)
    }

    /// The reports of `mode`'s runs at `limit`, in run order.
    public func reports(mode: CompareMode, limit: String) -> [Report] {
        runs.filter { $0.mode == mode && $0.limit == limit }.map(\.report)
    }
}
