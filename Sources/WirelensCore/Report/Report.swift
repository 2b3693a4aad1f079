/// A probe run's report: the document behind `--format json`, schema `wirelens.report/2`.
public struct Report: Sendable, Equatable {
    /// The schema identifier written in every report.
    public static let schemaID = "wirelens.report/2"
    /// The version before: the same members, every transaction at `ReportDetail.full`; read, never written.
    public static let previousSchemaID = "wirelens.report/1"

    public var schema = Report.schemaID
    /// How much of each transaction the document holds; a report read from a `wirelens.report/1` document is `full`.
    public var detail = ReportDetail.standard
    public var tool = Tool()
    public var libcurl: LibcurlDescription
    public var command: String
    /// Wall-clock µs when the run started and ended.
    public var startedAt: Int64
    public var endedAt: Int64
    /// True when SIGINT/SIGTERM ended the run early; `tasks` holds what had finished.
    public var interrupted: Bool
    public var configuration: RunConfiguration
    public var caveats: [Caveat]
    public var summary: Summary
    /// What a segmented upload did as a whole (`wirelens upload` only).
    public var upload: UploadSection?
    /// Each connection of the run once, with the kernel's facts of it (`ConnectionLedger`: bounded in long runs).
    public var connections: [ConnectionRecord]
    /// The tasks; a report written while its run went on (`ProbeSession.stream`) holds none, or its only task.
    public var tasks: [TaskRecord]

    /// A report of `tasks`, summarised by `summary` when given (the tasks went elsewhere as they ended), else
    /// by `Summary.build(tasks:)`; its connections likewise given or gathered from the tasks.
    public init(libcurl: LibcurlDescription, command: String, startedAt: Int64, endedAt: Int64, interrupted: Bool,
                configuration: RunConfiguration, caveats: [Caveat], tasks: [TaskRecord], summary: Summary? = nil,
                connections: [ConnectionRecord]? = nil) {
        self.libcurl = libcurl
        self.command = command
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.interrupted = interrupted
        self.configuration = configuration
        self.caveats = caveats
        self.tasks = tasks
        self.summary = summary ?? Summary.build(tasks: tasks)
        self.connections = connections ?? ConnectionLedger(tasks).records
    }

    /// The program that wrote the report.
    public struct Tool: Sendable, Codable, Equatable {
        public var name = "wirelens"
        public var version = WirelensVersion.current

        /// This build of Wirelens.
        public init() {}
    }
}

/// What a run was asked to do, redacted, as recorded in its report.
public struct RunConfiguration: Sendable, Codable, Equatable {
    /// The URLs (redacted).
    public var urls: [String]
    public var method: String
    /// The request body: "none", "file", "generated" or "form".
    public var body: String
    public var bodyPath: String?
    public var bodyBytes: Int64
    public var repeatCount: Int
    public var options: ProbeOptions

    public init(urls: [String], method: String, body: BodySource, repeatCount: Int, options: ProbeOptions) {
        self.urls = urls.map(Redactor.url)
        self.method = method
        switch body {
        case .none: self.body = "none"
        case .file(let path, _), .fileRange(let path, _, _), .pipe(let path, _): self.body = "file"; bodyPath = path
        case .generated: self.body = "generated"
        case .pieces: self.body = "form"
        }
        bodyBytes = body.size
        self.repeatCount = repeatCount
        self.options = options.redacted
    }
}
