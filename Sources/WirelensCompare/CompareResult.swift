import WirelensCore

/// One configuration's figures aggregated over its repetitions: throughput, wall time, latency percentiles,
/// the median of each phase, connections, reuse, errors and the speed-up against the smallest limit.
public struct CompareResult: Sendable, Equatable, Codable {
    public var mode: CompareMode
    public var limit: CompareLimit
    public var repetitions: Int
    /// "B/s" for workloads that move bytes, "req/s" for `requests:N`.
    public var throughputUnit: String
    /// The median over repetitions of each run's throughput.
    public var throughput: Double
    /// Each repetition's throughput, in run order.
    public var throughputRuns: [Double]
    /// The median over repetitions of each run's wall time (ms).
    public var wallMs: Double
    /// Task durations (ms) over every repetition: p50, p90, p99 and the rest; nil without tasks.
    public var latencyMs: PhaseStats?
    /// The median of each phase (ms) over every transaction of every repetition in which it happened.
    public var phaseMediansMs: [String: Double]
    /// The median over repetitions of the connections each run opened.
    public var connectionsOpened: Double
    /// The connections each repetition opened, in run order.
    public var connectionsOpenedRuns: [Int]
    /// The most connections open at once in any repetition.
    public var maxOpenAtOnce: Int
    /// Transactions that reused a pooled connection, over all transactions.
    public var reuseRatio: Double
    public var tasks: Int
    /// Failed tasks over every repetition (retried segment attempts included).
    public var errors: Int
    /// The throughput against the smallest limit of the same mode; nil until `withSpeedup` sets it.
    public var speedup: Speedup?
    /// The verdict holding the most diagnosed transaction time over every repetition, nil without kernel facts.
    public var leadingVerdict: VerdictShare?
    /// The failed tasks of every repetition (cancelled ones left out), nil when none failed: such a configuration
    /// is marked in every format and never recommended.
    public var failure: Failure?
    /// The median over repetitions of the share of the machine's CPU time (every CPU, `/proc/stat`) that was busy
    /// during the run, nil where it was not read.
    public var machineBusyShare: Double?
    /// The median over repetitions of the comparing process's CPU time over the run's wall time (1.0: one CPU's
    /// worth), nil where it was not read.
    public var clientCPUShare: Double?
    /// True when the server was on this machine (a loopback address): both ends then shared its CPUs.
    public var peerOnThisMachine = false

    private enum CodingKeys: String, CodingKey {
        case mode, limit, repetitions, throughputUnit, throughput, throughputRuns, wallMs, latencyMs, phaseMediansMs,
             connectionsOpened, connectionsOpenedRuns, maxOpenAtOnce, reuseRatio, tasks, errors, speedup, leadingVerdict,
             failure, machineBusyShare, clientCPUShare, peerOnThisMachine
    }

    /// Encodes the phase medians in timeline order, so that the same result always gives the same document.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode, forKey: .mode)
        try c.encode(limit, forKey: .limit)
        try c.encode(repetitions, forKey: .repetitions)
        try c.encode(throughputUnit, forKey: .throughputUnit)
        try c.encode(throughput, forKey: .throughput)
        try c.encode(throughputRuns, forKey: .throughputRuns)
        try c.encode(wallMs, forKey: .wallMs)
        try c.encode(latencyMs, forKey: .latencyMs)
        try c.encode(OrderedMap(phaseMediansMs, order: Phases.names), forKey: .phaseMediansMs)
        try c.encode(connectionsOpened, forKey: .connectionsOpened)
        try c.encode(connectionsOpenedRuns, forKey: .connectionsOpenedRuns)
        try c.encode(maxOpenAtOnce, forKey: .maxOpenAtOnce)
        try c.encode(reuseRatio, forKey: .reuseRatio)
        try c.encode(tasks, forKey: .tasks)
        try c.encode(errors, forKey: .errors)
        try c.encode(speedup, forKey: .speedup)
        try c.encode(leadingVerdict, forKey: .leadingVerdict)
        try c.encodeIfPresent(failure, forKey: .failure)
        try c.encode(machineBusyShare, forKey: .machineBusyShare)
        try c.encode(clientCPUShare, forKey: .clientCPUShare)
        try c.encode(peerOnThisMachine, forKey: .peerOnThisMachine)
    }

    /// True when this machine bounded the configuration whatever the verdicts said: its CPUs were busy at least
    /// `HostFacts.saturatedShare` of the runs with the server on it, and the client itself worked at least
    /// `HostFacts.sharedRunShare` of a CPU, so both ends competed for them (a loopback comparison on a small machine:
    /// no single transfer's thread looks CPU-bound, yet the machine was the limit). A client that mostly waited (a
    /// server that thinks, on a machine another job keeps busy) is not held back by the machine.
    public var machineSaturated: Bool {
        peerOnThisMachine && (machineBusyShare ?? 0) >= HostFacts.saturatedShare
            && (clientCPUShare ?? 0) >= HostFacts.sharedRunShare
    }

    /// A configuration's failed tasks over every repetition: how many of how many, and the first failure.
    public struct Failure: Sendable, Equatable, Codable {
        /// Failed tasks over every repetition, cancelled ones left out (as `TaskFailures` counts them).
        public var failedTasks: Int
        /// Tasks over every repetition.
        public var tasks: Int
        /// The first failure: of the first repetition with one, the failed task with the lowest index (redacted).
        public var error: TransferError

        /// "8/8 tasks failed: connect: Failed to connect to 127.0.0.1 port 9: Connection refused".
        public var description: String {
            "\(failedTasks)/\(tasks) tasks failed: \(error.errorClass.rawValue): \(error.message)"
        }

        /// The failures of `runs` (one configuration's repetitions in run order), nil when no task failed. A
        /// segmented upload that completed is no failure (its failed attempts were retried into success: `errors`
        /// counts them); one that did not counts its failed attempts, or names its own failure when none failed.
        public static func of(_ runs: [Report]) -> Failure? {
            var failed = 0
            var tasks = 0
            var first: TransferError?
            for report in runs {
                tasks += report.tasks.count
                if let upload = report.upload, upload.failure == nil { continue }
                let failures = TaskFailures(report.tasks)
                failed += failures.count
                if first == nil {
                    first = failures.first?.error
                        ?? report.upload?.failure.map { TransferError(errorClass: .other, message: $0) }
                }
            }
            guard let first else { return nil }
            return Failure(failedTasks: failed, tasks: tasks, error: first)
        }
    }

    /// A throughput ratio against a baseline configuration, with its spread over repetitions.
    public struct Speedup: Sendable, Equatable, Codable {
        /// The baseline's limit label (the smallest limit of the mode, normally 1).
        public var baseline: String
        /// Median throughput over the baseline's median throughput.
        public var median: Double
        /// The smallest and largest ratio of a repetition to the baseline's same repetition.
        public var min: Double
        public var max: Double
    }

    /// The aggregate of `runs`, the reports of one configuration's repetitions in run order.
    public static func measure(mode: CompareMode, limit: CompareLimit, movesBytes: Bool, runs: [Report],
                               machineBusy: [Double] = [], clientCPU: [Double] = []) -> CompareResult {
        var durations: [Double] = []
        var phases = Array(repeating: [Double](), count: Phases.names.count)
        var transactions = 0
        var reused = 0
        var tasks = 0
        var errors = 0
        var local = false
        for report in runs {
            tasks += report.tasks.count
            errors += report.summary.failed
            for task in report.tasks {
                durations.append(Double(task.duration) / 1000)
                for tx in task.transactions {
                    transactions += 1
                    if let address = tx.remoteAddress, HostFacts.isOnThisMachine(address) { local = true }
                    if tx.reusedConnection { reused += 1 }
                    for p in phases.indices {
                        if let v = tx.phases.value(at: p) { phases[p].append(Double(v) / 1000) }
                    }
                }
            }
        }
        var medians: [String: Double] = [:]
        for (i, name) in Phases.names.enumerated() where !phases[i].isEmpty {
            medians[name] = median(phases[i])
        }
        let throughputs = runs.map { throughput(of: $0, movesBytes: movesBytes) }
        let opened = runs.map(\.summary.connections.opened)
        return CompareResult(
            mode: mode, limit: limit, repetitions: runs.count, throughputUnit: movesBytes ? "B/s" : "req/s",
            throughput: median(throughputs), throughputRuns: throughputs, wallMs: median(runs.map(wallMs(of:))),
            latencyMs: PhaseStats(durations), phaseMediansMs: medians,
            connectionsOpened: median(opened.map(Double.init)), connectionsOpenedRuns: opened,
            maxOpenAtOnce: runs.map(\.summary.connections.maxOpenAtOnce).max() ?? 0,
            reuseRatio: transactions > 0 ? Double(reused) / Double(transactions) : 0,
            tasks: tasks, errors: errors, speedup: nil,
            leadingVerdict: VerdictShare.leading(runs.map(\.summary.verdicts)), failure: Failure.of(runs),
            machineBusyShare: machineBusy.isEmpty ? nil : median(machineBusy),
            clientCPUShare: clientCPU.isEmpty ? nil : median(clientCPU), peerOnThisMachine: local)
    }

    /// A run's wall time in ms: the segmented upload's own for an upload, else first task start to last task end.
    public static func wallMs(of report: Report) -> Double {
        report.upload?.wallMs ?? report.summary.wallTimeMs
    }

    /// A run's throughput over its successful tasks (`TaskRecord.succeeded`) only: a segmented upload's effective
    /// rate, the successful tasks' body bytes (both ways) per second of wall time, or successful tasks per second
    /// when the workload moves no bytes to speak of.
    public static func throughput(of report: Report, movesBytes: Bool) -> Double {
        if let upload = report.upload {
            return upload.effectiveBytesPerSecond
                ?? Double(upload.fileBytes - upload.resumedBytesSkipped) / Swift.max(upload.wallMs / 1000, 1e-6)
        }
        let s = report.summary
        let seconds = Swift.max(s.wallTimeMs / 1000, 1e-6)
        guard s.failed > 0 else {
            return movesBytes ? Double(s.requestBodyBytes + s.responseBodyBytes) / seconds : s.tasksPerSecond
        }
        guard movesBytes else { return Double(s.succeeded) / seconds }
        var bytes: Int64 = 0
        for task in report.tasks where task.succeeded {
            for tx in task.transactions { bytes += tx.requestBodyBytes + tx.responseBodyBytes }
        }
        return Double(bytes) / seconds
    }

    /// The same result with its speed-up against `baseline` (repetitions paired by index).
    public func withSpeedup(against baseline: CompareResult) -> CompareResult {
        var copy = self
        let ratios = zip(throughputRuns, baseline.throughputRuns).compactMap { $1 > 0 ? $0 / $1 : nil }
        copy.speedup = Speedup(baseline: baseline.limit.label,
                               median: baseline.throughput > 0 ? throughput / baseline.throughput : 0,
                               min: ratios.min() ?? 0, max: ratios.max() ?? 0)
        return copy
    }

    /// Every configuration's result with its speed-up against the smallest limit of its mode whose tasks all
    /// succeeded (the smallest limit when every one had failures).
    public static func withSpeedups(_ results: [CompareResult]) -> [CompareResult] {
        results.map { result in
            let sameMode = results.filter { $0.mode == result.mode }
            let clean = sameMode.filter { $0.failure == nil }
            guard let baseline = (clean.isEmpty ? sameMode : clean).min(by: { $0.limit.value < $1.limit.value }) else {
                return result
            }
            return result.withSpeedup(against: baseline)
        }
    }

    /// The median of `values` (0 when there are none).
    static func median(_ values: [Double]) -> Double {
        PhaseStats.percentile(values.sorted(), 0.5)
    }
}

extension CompareResult {
    /// Decodes a result, documents written before `machineBusyShare` and `peerOnThisMachine` included.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.decode(CompareMode.self, forKey: .mode)
        limit = try c.decode(CompareLimit.self, forKey: .limit)
        repetitions = try c.decode(Int.self, forKey: .repetitions)
        throughputUnit = try c.decode(String.self, forKey: .throughputUnit)
        throughput = try c.decode(Double.self, forKey: .throughput)
        throughputRuns = try c.decode([Double].self, forKey: .throughputRuns)
        wallMs = try c.decode(Double.self, forKey: .wallMs)
        latencyMs = try c.decodeIfPresent(PhaseStats.self, forKey: .latencyMs)
        phaseMediansMs = try c.decode([String: Double].self, forKey: .phaseMediansMs)
        connectionsOpened = try c.decode(Double.self, forKey: .connectionsOpened)
        connectionsOpenedRuns = try c.decode([Int].self, forKey: .connectionsOpenedRuns)
        maxOpenAtOnce = try c.decode(Int.self, forKey: .maxOpenAtOnce)
        reuseRatio = try c.decode(Double.self, forKey: .reuseRatio)
        tasks = try c.decode(Int.self, forKey: .tasks)
        errors = try c.decode(Int.self, forKey: .errors)
        speedup = try c.decodeIfPresent(Speedup.self, forKey: .speedup)
        leadingVerdict = try c.decodeIfPresent(VerdictShare.self, forKey: .leadingVerdict)
        failure = try c.decodeIfPresent(Failure.self, forKey: .failure)
        // Documents written before these members have neither: not read, no peer known.
        machineBusyShare = try c.decodeIfPresent(Double.self, forKey: .machineBusyShare)
        clientCPUShare = try c.decodeIfPresent(Double.self, forKey: .clientCPUShare)
        peerOnThisMachine = try c.decodeIfPresent(Bool.self, forKey: .peerOnThisMachine) ?? false
    }
}
