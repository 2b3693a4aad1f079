extension Summary {
    /// Builds a run's summary task by task, in any order, in memory that does not grow with the run.
    ///
    /// Counts, byte totals, wall time, min, max and mean are exact. Percentiles are exact while a phase has
    /// at most `PhaseAccumulator.defaultExactLimit` values, and within `LogHistogram.relativeError` (1/256)
    /// beyond. Connections are counted by `ConnectionTally`, which holds at most `ConnectionTally.defaultLimit`
    /// spans. The maps (statuses, errors, protocols) have a key per distinct value seen.
    package struct Accumulator: Sendable {
        private var start = Int64.max
        private var end = Int64.min
        private var up: Int64 = 0
        private var down: Int64 = 0
        private var tasks = 0
        private var failed = 0
        private var transactions = 0
        private var phases: [PhaseAccumulator]
        private var protocols: [String: Int] = [:]
        private var statuses: [Int: Int] = [:]
        private var errors: [String: Int] = [:]
        private var connections: ConnectionTally
        private var verdicts = VerdictTally()
        /// What the failed tasks tell (the first transport error, an HTTP error status, the failure to name).
        package private(set) var failures = TaskFailures()

        package init(exactLimit: Int = PhaseAccumulator.defaultExactLimit,
                    connectionLimit: Int = ConnectionTally.defaultLimit) {
            phases = Array(repeating: PhaseAccumulator(exactLimit: exactLimit), count: Phases.names.count)
            connections = ConnectionTally(limit: connectionLimit)
        }

        /// Takes one finished task into account, reading its fields in place (copying a record retains every
        /// string in it).
        package mutating func add(_ task: TaskRecord) {
            tasks += 1
            start = min(start, task.startedAt)
            end = max(end, task.endedAt)
            if let status = task.statusCode { statuses[status, default: 0] += 1 }
            if let error = task.error {
                failed += 1
                errors[error.errorClass.rawValue, default: 0] += 1
            }
            failures.add(task)
            // Through a buffer pointer, whose elements are read in place (an array element passed on may be copied).
            task.transactions.withUnsafeBufferPointer { list in
                for x in list.indices {
                    transactions += 1
                    up += list[x].requestBodyBytes
                    down += list[x].responseBodyBytes
                    for p in phases.indices {
                        if let v = list[x].phases.value(at: p) { phases[p].add(v) }
                    }
                    if let name = list[x].networkProtocolName { protocols[name, default: 0] += 1 }
                    connections.add(list[x])
                    verdicts.add(list[x])
                }
            }
        }

        /// What is held now, for tests that hold memory flat as runs grow: phase values kept exactly,
        /// connection spans, and keys of the maps.
        package var retained: (phaseValues: Int, connectionSpans: Int, mapKeys: Int) {
            (phases.reduce(0) { $0 + $1.retainedValues }, connections.retainedSpans,
             protocols.count + statuses.count + errors.count)
        }

        /// The summary of the tasks added so far.
        package var summary: Summary {
            let (first, last) = tasks == 0 ? (Int64(0), Int64(0)) : (start, end)
            let wallMicros = max(last - first, 1)
            let seconds = Double(wallMicros) / 1e6
            var stats: [String: PhaseStats] = [:]
            for (i, name) in Phases.names.enumerated() {
                if let s = phases[i].stats { stats[name] = s.scaled(by: 1000) }
            }
            return Summary(
                tasks: tasks, succeeded: tasks - failed, failed: failed, transactions: transactions,
                wallTimeMs: Double(wallMicros) / 1000, tasksPerSecond: Double(tasks) / seconds,
                requestBodyBytes: up, responseBodyBytes: down,
                uploadBytesPerSecond: Double(up) / seconds, downloadBytesPerSecond: Double(down) / seconds,
                phases: stats, connections: connections.summary,
                statusCodes: Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), $0.value) }),
                errors: errors, protocols: protocols, verdicts: verdicts.stats)
        }
    }
}
