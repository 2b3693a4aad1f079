/// Everything measured about one HTTP request/response exchange, after URLSessionTaskTransactionMetrics.
public struct TransactionMetrics: Sendable, Equatable {
    /// The URL requested, redacted (`Redactor.url`) whenever it is set.
    public var url: String {
        didSet { url = Redactor.url(url) }
    }
    public var method: String
    /// When each step happened (wall clock, µs since the epoch; nil if it did not happen).
    public var timeline: Timeline
    /// The phase durations in µs.
    public var phases: Phases
    /// "http/1.1", "h2" or "http/1.0"; nil when no response arrived.
    public var networkProtocolName: String?
    /// With DNS over HTTPS: µs from the lookup's start to the last DoH answer (libcurl's "a DoH request is completed"
    /// for each of its A and AAAA requests), inside the DNS phase; nil when no DoH request ran.
    @CompactOptional public var dohDuration: Int64? = nil
    /// libcurl's connection number (`#N` in its debug text); unique within a run.
    @CompactOptional public var connectionId: Int? = nil
    public var localAddress: String?
    @CompactOptional public var localPort: Int? = nil
    public var remoteAddress: String?
    @CompactOptional public var remotePort: Int? = nil
    /// The negotiated TLS version, e.g. "TLSv1.3".
    public var tlsVersion: String?
    /// The negotiated TLS cipher suite.
    public var tlsCipher: String?
    /// The protocol chosen by ALPN, e.g. "h2".
    public var alpn: String?
    /// The final response's status code.
    @CompactOptional public var statusCode: Int? = nil
    /// The final response's reason phrase (`OK`; empty over HTTP/2), kept without `includeResponseHeaders`.
    public var statusText: String?
    /// The final response's Content-Type, kept without `includeResponseHeaders`.
    public var contentType: String?
    public var requestHeaderBytes: Int64 = 0
    public var requestBodyBytes: Int64 = 0
    public var responseHeaderBytes: Int64 = 0
    public var responseBodyBytes: Int64 = 0
    /// With `--compressed`: the response body's bytes as they came over the connection, before content decoding
    /// (`responseBodyBytes` counts them as delivered, decoded); nil otherwise.
    @CompactOptional public var responseBodyWireBytes: Int64? = nil
    /// Time in µs between the request headers and the first body byte when `Expect: 100-continue` was sent.
    @CompactOptional public var expectContinueWait: Int64? = nil
    /// For a retry: the µs waited before it (the backoff, or the server's Retry-After capped at the retry policy's
    /// `maxDelay`); nil for other transactions.
    @CompactOptional public var retryWait: Int64? = nil
    /// For a retry after an answer with Retry-After: the wait the server asked for, in µs (more than `retryWait`
    /// when it was capped).
    @CompactOptional public var retryAfter: Int64? = nil
    /// When libcurl made the socket of the connection this transaction opened (wall-clock µs; its sockopt callback,
    /// just before the SYN); nil on other transactions.
    @CompactOptional public var connectionOpened: Int64? = nil
    /// When libcurl closed the transaction's connection (wall-clock µs), when it did so while the transaction was in
    /// flight (a connection it may not keep: `Connection: close`, `--no-reuse`, one that died); nil otherwise.
    @CompactOptional public var connectionClosed: Int64? = nil
    /// libcurl's own cumulative timers, for comparison with `curl -w`; zero in a record read from a document written at
    /// `ReportDetail.standard`, which leaves them out.
    public var curlTimers: CurlTimers
    /// Response headers when asked for, redacted (`Redactor.headers`) whenever they are set.
    public var responseHeaders: [HeaderField]? {
        didSet { if let fields = responseHeaders { responseHeaders = Redactor.headers(fields) } }
    }
    /// Why the transaction failed, if it did.
    public var error: TransferError?
    /// The kernel's facts of the connection over this transaction (Linux; nil when none could be read).
    public var tcp: TCPFacts?
    /// Why the transaction took the time it took: the verdict and its evidence.
    public var diagnosis: Diagnosis?
    /// With `--mptcp` (or a check's `mptcp: true`) on a Multipath TCP socket: whether MPTCP was negotiated and its
    /// subflows at the transaction's end; nil on a plain TCP socket.
    public var mptcp: MPTCPFacts?
    /// The kernel's totals of the connection at the transaction's last snapshot, for the report's connections
    /// (`ConnectionLedger`); not part of the transaction's own document.
    @NotCompared public var connectionTotals: TCPTotals? = nil
    // The one-byte fields last, side by side, so that they share one word.
    public var kind: TransactionKind
    /// True when the connection came from the pool.
    public var reusedConnection: Bool
    /// True when the request went through a proxy.
    public var proxyConnection: Bool
    /// How the host name was resolved (`DomainResolutionProtocol.of`); nil when no resolver ran for this transaction.
    public var domainResolutionProtocol: DomainResolutionProtocol?

    /// A transaction; its URL is redacted here, so that no caller can forget it.
    public init(kind: TransactionKind, url: String, method: String, timeline: Timeline, phases: Phases,
                reusedConnection: Bool, proxyConnection: Bool, curlTimers: CurlTimers) {
        self.kind = kind
        self.url = Redactor.url(url)
        self.method = method
        self.timeline = timeline
        self.phases = phases
        self.reusedConnection = reusedConnection
        self.proxyConnection = proxyConnection
        self.curlTimers = curlTimers
    }

    /// Request body bytes per second over the send phase.
    public var uploadSpeed: Double? {
        guard requestBodyBytes > 0, let send = phases.send, send > 0 else { return nil }
        return Double(requestBodyBytes) * 1e6 / Double(send)
    }

    /// Response body bytes per second over the receive phase.
    public var downloadSpeed: Double? {
        guard responseBodyBytes > 0, let receive = phases.receive, receive > 0 else { return nil }
        return Double(responseBodyBytes) * 1e6 / Double(receive)
    }

    /// True when this transaction opened its own connection.
    public var openedConnection: Bool { !reusedConnection && timeline.connectEnd != nil }
}
