/// What the wire says about a probe report's claims: per transaction (its connection, reuse flag, connect
/// time) and per run (connections opened, connections per host, requests per connection, stray exchanges).
public struct ProbeVerification: Sendable, Equatable {
    /// A connect time agrees with the handshake when they differ by at most this much (µs)...
    public static let connectToleranceFixed: Int64 = 5_000
    /// ...plus this fraction of the handshake: libcurl's connect phase also holds socket set-up and scheduling.
    public static let connectToleranceFraction = 0.25
    /// The tolerance as the reports state it.
    public static var toleranceText: String {
        "±\(connectToleranceFixed / 1000) ms + \(Int(connectToleranceFraction * 100))% of the handshake"
    }

    /// One transaction of the probe report checked against the capture.
    public struct TransactionCheck: Sendable, Equatable {
        /// Task index and transaction position within the task.
        public var task: Int
        public var transaction: Int
        public var url: String
        /// The probe's `reusedConnection`.
        public var claimedReuse: Bool
        /// The capture's connection (index in `connections`) whose 4-tuple matches and whose lifetime holds the
        /// transaction; nil when none does.
        public var connection: Int?
        /// The exchange on that connection this transaction made (index within the connection).
        public var exchange: Int?
        /// True when this transaction made its connection's first request and the connection's SYN was
        /// captured after the transaction began: the transaction opened the connection.
        public var ownsSYN: Bool?
        /// True when `ownsSYN` is the opposite of `claimedReuse`; nil when the capture cannot tell.
        public var reuseConfirmed: Bool?
        /// The probe's TCP connect time and the wire's handshake (SYN to the client's ACK), in µs.
        public var probeConnect: Int64?
        public var wireHandshake: Int64?
        /// Whether they agree within `ProbeVerifier.connectTolerance`.
        public var connectAgrees: Bool?
        /// What the wire contradicts, one sentence each.
        public var disagreements: [String] = []

        public init(task: Int, transaction: Int, url: String, claimedReuse: Bool) {
            self.task = task
            self.transaction = transaction
            self.url = url
            self.claimedReuse = claimedReuse
        }
    }

    /// The connections to one server during the run.
    public struct HostCheck: Sendable, Equatable {
        public var server: Endpoint
        public var connections: Int
        /// The most connections to this server in use at one instant (first packet to first FIN/RST).
        public var maxConcurrent: Int
        /// The probe's --max-host-connections; nil when unlimited.
        public var configuredLimit: Int?

        public init(server: Endpoint, connections: Int, maxConcurrent: Int, configuredLimit: Int?) {
            self.server = server
            self.connections = connections
            self.maxConcurrent = maxConcurrent
            self.configuredLimit = configuredLimit
        }
    }

    /// Requests on one connection: on the wire, and in the probe's report.
    public struct ConnectionUse: Sendable, Equatable {
        public var connection: Int
        public var wireExchanges: Int
        public var probeTransactions: Int

        public init(connection: Int, wireExchanges: Int, probeTransactions: Int) {
            self.connection = connection
            self.wireExchanges = wireExchanges
            self.probeTransactions = probeTransactions
        }
    }

    /// An exchange on the wire that no transaction of the report made.
    public struct StrayExchange: Sendable, Equatable {
        public var connection: Int
        public var exchange: Int
        public var method: String?
        public var target: String?

        public init(connection: Int, exchange: Int, method: String?, target: String?) {
            self.connection = connection
            self.exchange = exchange
            self.method = method
            self.target = target
        }
    }

    public var transactions: [TransactionCheck] = []
    /// Transactions the probe says opened a new connection.
    public var connectionsOpenedByProbe = 0
    /// Connections from the probe's local addresses to its servers whose SYN falls within the run.
    public var connectionsOnWire = 0
    public var hosts: [HostCheck] = []
    public var requestsPerConnection: [ConnectionUse] = []
    public var strayExchanges: [StrayExchange] = []
    /// Every disagreement, run-level ones first, then per transaction in task order.
    public var disagreements: [String] = []

    public init() {}
}
