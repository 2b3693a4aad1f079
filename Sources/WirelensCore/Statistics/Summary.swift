/// Aggregates of a run: phase percentiles, throughput, connection reuse, statuses and errors.
public struct Summary: Sendable, Codable, Equatable {
    public var tasks: Int
    public var succeeded: Int
    public var failed: Int
    public var transactions: Int
    /// From the first task's start to the last task's end, in ms.
    public var wallTimeMs: Double
    /// Tasks finished per second of wall time.
    public var tasksPerSecond: Double
    public var requestBodyBytes: Int64
    public var responseBodyBytes: Int64
    /// Request body bytes per second of wall time.
    public var uploadBytesPerSecond: Double
    /// Response body bytes per second of wall time.
    public var downloadBytesPerSecond: Double
    /// Per-phase statistics in ms, over the transactions in which the phase happened.
    public var phases: [String: PhaseStats]
    public var connections: ConnectionSummary
    /// Final status codes by count.
    public var statusCodes: [String: Int]
    /// Failed tasks by error class.
    public var errors: [String: Int]
    /// Transactions by protocol name.
    public var protocols: [String: Int]
    /// Per verdict, the transactions diagnosed so, their time and the longest one's sentence; nil when no
    /// transaction had a diagnosis (reports from before it).
    public var verdicts: [String: VerdictStats]?

    /// Connection figures of a run.
    public struct ConnectionSummary: Sendable, Codable, Equatable {
        /// Transactions that opened a new connection.
        public var opened: Int
        /// Transactions that reused a pooled connection.
        public var reused: Int
        /// Distinct connections seen (by connection number and 4-tuple).
        public var distinct: Int
        /// The most connections open at once, each counted from its handshake to the moment libcurl closed it (or, for
        /// one closed after its last transaction, to that transaction's end): see `ConnectionTally`.
        public var maxOpenAtOnce: Int
    }

    private enum CodingKeys: String, CodingKey {
        case tasks, succeeded, failed, transactions, wallTimeMs, tasksPerSecond, requestBodyBytes, responseBodyBytes,
             uploadBytesPerSecond, downloadBytesPerSecond, phases, connections, statusCodes, errors, protocols, verdicts
    }

    /// Encodes the maps with their keys in a fixed order (phases in timeline order, the others sorted),
    /// so that the same summary always gives the same document.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(tasks, forKey: .tasks)
        try c.encode(succeeded, forKey: .succeeded)
        try c.encode(failed, forKey: .failed)
        try c.encode(transactions, forKey: .transactions)
        try c.encode(wallTimeMs, forKey: .wallTimeMs)
        try c.encode(tasksPerSecond, forKey: .tasksPerSecond)
        try c.encode(requestBodyBytes, forKey: .requestBodyBytes)
        try c.encode(responseBodyBytes, forKey: .responseBodyBytes)
        try c.encode(uploadBytesPerSecond, forKey: .uploadBytesPerSecond)
        try c.encode(downloadBytesPerSecond, forKey: .downloadBytesPerSecond)
        try c.encode(OrderedMap(phases, order: Phases.names), forKey: .phases)
        try c.encode(connections, forKey: .connections)
        try c.encode(OrderedMap(statusCodes), forKey: .statusCodes)
        try c.encode(OrderedMap(errors), forKey: .errors)
        try c.encode(OrderedMap(protocols), forKey: .protocols)
        if let verdicts { try c.encode(OrderedMap(verdicts, order: Verdict.allCases.map(\.rawValue)), forKey: .verdicts) }
    }

    /// Builds the summary of a run's tasks (see `Accumulator` for the bounds of its percentiles).
    public static func build(tasks: [TaskRecord]) -> Summary {
        var accumulator = Accumulator()
        // Indices, not elements: iterating the records would copy (and retain) each one.
        for t in tasks.indices { accumulator.add(tasks[t]) }
        return accumulator.summary
    }

    /// What identifies a transaction's connection: libcurl's number plus the 4-tuple.
    public struct ConnectionKey: Hashable, Sendable {
        public var id: Int?
        public var localAddress: String?
        public var localPort: Int
        public var remoteAddress: String?
        public var remotePort: Int?

        /// Hashes the numbers only: they tell connections apart almost always, and hashing the address
        /// strings of every transaction of a large run costs more than the rare collision (equality still
        /// compares every field).
        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(localPort)
            hasher.combine(remotePort)
        }

        /// The key of a transaction's connection, or nil when its local port is unknown.
        public init?(_ tx: TransactionMetrics) {
            guard let port = tx.localPort else { return nil }
            id = tx.connectionId
            localAddress = tx.localAddress
            localPort = port
            remoteAddress = tx.remoteAddress
            remotePort = tx.remotePort
        }
    }
}
