/// One connection of a run, stated once: what identifies it, the transactions it carried, and the kernel's facts
/// of the connection as a whole (its handshake RTT, path MTU and totals) with a diagnosis of it.
///
/// Made by `ConnectionLedger` from the transactions; a transaction's own `tcp` says what moved during it, this says
/// what the connection did over its life (on an HTTP/2 connection carrying several streams at once, only here).
public struct ConnectionRecord: Sendable, Equatable {
    /// libcurl's number for the connection.
    public var connectionId: Int?
    public var localAddress: String?
    public var localPort: Int
    public var remoteAddress: String?
    public var remotePort: Int?
    /// The protocol of its first transaction ("http/1.1", "h2").
    public var networkProtocolName: String?
    /// Wall-clock µs: the first transaction's handshake (or request) start, the last transaction's last response byte.
    public var firstUsedAt: Int64
    public var lastUsedAt: Int64
    /// How many transactions it carried (exact).
    public var transactionCount: Int
    /// Which they were, in the order they were counted; may stop short of `transactionCount` (`ConnectionLedger`).
    public var transactions: [TransactionReference]
    /// True when transactions shared it at the same time (HTTP/2 streams).
    public var shared: Bool
    /// The kernel's first RTT sample of the connection, SYN to SYN/ACK (µs); nil when no transaction of the run
    /// opened it or the kernel was not asked.
    public var handshakeRTT: UInt32?
    /// The path MTU at the connection's last snapshot.
    public var pathMTU: UInt32?
    /// The kernel's counters over the connection's life, at its last snapshot.
    public var totals: TCPTotals?
    /// The verdict that held the most of its transactions' time.
    public var diagnosis: Verdict?

    /// A record as given.
    public init(connectionId: Int?, localAddress: String?, localPort: Int, remoteAddress: String?, remotePort: Int?,
                networkProtocolName: String?, firstUsedAt: Int64, lastUsedAt: Int64, transactionCount: Int,
                transactions: [TransactionReference], shared: Bool, handshakeRTT: UInt32?, pathMTU: UInt32?,
                totals: TCPTotals?, diagnosis: Verdict?) {
        self.connectionId = connectionId
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.networkProtocolName = networkProtocolName
        self.firstUsedAt = firstUsedAt
        self.lastUsedAt = lastUsedAt
        self.transactionCount = transactionCount
        self.transactions = transactions
        self.shared = shared
        self.handshakeRTT = handshakeRTT
        self.pathMTU = pathMTU
        self.totals = totals
        self.diagnosis = diagnosis
    }

    /// A transaction of the report: its task's index and its place among the task's transactions.
    public struct TransactionReference: Sendable, Equatable, Codable {
        public var task: Int
        public var transaction: Int

        public init(task: Int, transaction: Int) {
            self.task = task
            self.transaction = transaction
        }
    }

    /// A connection's diagnosis: the verdict holding the most of its diagnosed transactions' time, that share, how
    /// many transactions had it, and the diagnosis of the longest of them (its sentence and evidence).
    public struct Verdict: Sendable, Equatable, Codable {
        public var verdict: WirelensCore.Verdict
        /// Its transactions' time over the time of every diagnosed transaction of the connection, 0...1.
        public var share: Double
        public var transactions: Int
        public var example: Diagnosis

        public init(verdict: WirelensCore.Verdict, share: Double, transactions: Int, example: Diagnosis) {
            self.verdict = verdict
            self.share = share
            self.transactions = transactions
            self.example = example
        }
    }
}

extension ConnectionRecord: CompactJSONWritable {
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        ConnectionRecordJSONWriter.append(self, to: &bytes)
    }
}

extension ConnectionRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case connectionId, localAddress, localPort, remoteAddress, remotePort, networkProtocolName, firstUsedAt,
             lastUsedAt, transactionCount, transactions, shared, handshakeRTT, pathMTU, totals, diagnosis
    }

    /// Through the record's one writer (`ConnectionRecordJSONWriter`).
    public func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connectionId = try c.decodeIfPresent(Int.self, forKey: .connectionId)
        localAddress = try c.decodeIfPresent(String.self, forKey: .localAddress)
        localPort = try c.decode(Int.self, forKey: .localPort)
        remoteAddress = try c.decodeIfPresent(String.self, forKey: .remoteAddress)
        remotePort = try c.decodeIfPresent(Int.self, forKey: .remotePort)
        networkProtocolName = try c.decodeIfPresent(String.self, forKey: .networkProtocolName)
        firstUsedAt = try decodeInstant(c, .firstUsedAt)
        lastUsedAt = try decodeInstant(c, .lastUsedAt)
        transactionCount = try c.decode(Int.self, forKey: .transactionCount)
        transactions = try c.decode([TransactionReference].self, forKey: .transactions)
        shared = try c.decode(Bool.self, forKey: .shared)
        handshakeRTT = try c.decodeIfPresent(UInt32.self, forKey: .handshakeRTT)
        pathMTU = try c.decodeIfPresent(UInt32.self, forKey: .pathMTU)
        totals = try c.decodeIfPresent(TCPTotals.self, forKey: .totals)
        diagnosis = try c.decodeIfPresent(Verdict.self, forKey: .diagnosis)
    }
}
