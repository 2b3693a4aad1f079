/// What the wire says about a probe report's claims: per transaction (its connection, reuse flag, connect
/// time, the physical order of its instants) and per run (connections opened, connections at once per host and
/// in all, requests per connection, requests no transaction made), with the connections that are not the run's.
public struct ProbeVerification: Sendable, Equatable {
    /// How far (µs) a transaction's instant may stand on the wrong side of the packet it must precede or follow
    /// (clock and capture-timestamp noise).
    public static let orderSlack: Int64 = 50

    /// A connect time agrees with the handshake when they differ by at most this much (µs)...
    public static let connectToleranceFixed: Int64 = 5_000
    /// ...plus this fraction of the handshake: libcurl's connect phase also holds socket set-up and scheduling.
    public static let connectToleranceFraction = 0.25
    /// The tolerance as the reports state it.
    public static var toleranceText: String {
        "±\(connectToleranceFixed / 1000) ms + \(Int(connectToleranceFraction * 100))% of the handshake, "
            + "plus the client's pause before its request"
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
        /// True when the transaction's instants keep physical order with its packets (connect start not after the
        /// SYN, connect end not before the SYN/ACK, request start not after the request's first byte, response
        /// start not before the response's first byte; `orderSlack` allowed); nil when none could be compared.
        public var instantsInOrder: Bool?
        /// For a download the probe gave a verdict: what the wire shows of its pace, and whether that confirms the
        /// verdict; nil otherwise.
        public var download: DownloadWireCheck?
        /// For an HTTP/2 upload whose frames were read (h2c, or decrypted): the server's window and credit, and
        /// whether they confirm `h2-window`; nil otherwise.
        public var h2Window: H2WindowWireCheck?
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
        /// When its request's first byte was captured.
        public var requestStartAt: Int64?

        public init(connection: Int, exchange: Int, method: String?, target: String?, requestStartAt: Int64? = nil) {
            self.connection = connection
            self.exchange = exchange
            self.method = method
            self.target = target
            self.requestStartAt = requestStartAt
        }
    }

    /// A connection in use during the run that is not the run's: no transaction joined it, and it began before the
    /// run or goes to a server (or from an address) the probe did not use. Not a disagreement.
    public struct ForeignConnection: Sendable, Equatable {
        /// Why the connection is not the run's.
        public enum Reason: String, Sendable {
            case beganBeforeRun = "began-before-run"
            case otherTarget = "other-target"
        }

        public var connection: Int
        public var client: Endpoint
        public var server: Endpoint
        public var firstPacketAt: Int64
        public var exchanges: Int
        public var reason: Reason

        public init(connection: Int, client: Endpoint, server: Endpoint, firstPacketAt: Int64, exchanges: Int,
                    reason: Reason) {
            self.connection = connection
            self.client = client
            self.server = server
            self.firstPacketAt = firstPacketAt
            self.exchanges = exchanges
            self.reason = reason
        }
    }

    /// A TLS connection of the run whose records were not decrypted: its requests, streams and their concurrency
    /// cannot be checked (they are only inferred); not a disagreement, never an agreement either.
    public struct NotVerifiable: Sendable, Equatable {
        public var connection: Int
        /// Transactions of the report on it.
        public var transactions: Int
        /// Why it was not decrypted (a `TLSInfo.Decryption` value: "no-key-log", "keys-missing"…).
        public var reason: String

        public init(connection: Int, transactions: Int, reason: String) {
            self.connection = connection
            self.transactions = transactions
            self.reason = reason
        }
    }

    public var transactions: [TransactionCheck] = []
    /// The run's TLS connections that could not be verified without their keys.
    public var notVerifiable: [NotVerifiable] = []
    /// Transactions the probe says opened a new connection.
    public var connectionsOpenedByProbe = 0
    /// Connections from the probe's local addresses to its servers whose SYN falls within the run.
    public var connectionsOnWire = 0
    public var hosts: [HostCheck] = []
    /// The most of the run's connections in use at one instant, all servers together.
    public var maxConcurrent = 0
    /// The probe's --max-connections (all hosts); nil when unlimited.
    public var configuredTotalLimit: Int?
    public var requestsPerConnection: [ConnectionUse] = []
    public var strayExchanges: [StrayExchange] = []
    public var foreignConnections: [ForeignConnection] = []
    /// Every disagreement, run-level ones first, then per transaction in task order.
    public var disagreements: [String] = []

    public init() {}
}
