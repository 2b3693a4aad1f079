/// Raw observations of one transaction, as the engine gathers them, before any phase math.
///
/// Instants are monotonic nanoseconds from the engine's own clock; `curl` holds libcurl's
/// cumulative offsets, which are relative to the moment libcurl took the transfer off its queue.
public struct RawTimings: Sendable, Equatable {
    /// When the transfer was handed to the multi handle.
    public var fetchStart: Int64
    /// When CURLOPT_PREREQFUNCTION ran: a connection (new or reused) is ready, the request is about to be sent.
    public var connectionReady: Int64?
    /// When libcurl made the first socket of a new connection for the transfer (the sockopt callback, before
    /// `connect`): no SYN left before it.
    public var socketOpened: Int64?
    /// When libcurl said the TCP connection was made ("Connected to" in its debug text): the SYN/ACK had arrived.
    public var connected: Int64?
    /// When the last byte of the request (headers, then body) was written.
    public var requestEnd: Int64?
    /// When the first header byte of the final (non-1xx) response arrived.
    public var responseStart: Int64?
    /// When the transfer ended (completed or failed).
    public var end: Int64
    /// libcurl's timers for this transfer.
    public var curl: CurlTimers
    /// True when libcurl took the connection from its pool.
    public var reusedConnection: Bool
    /// True when the URL's host is an IP literal, so no name was resolved.
    public var hostIsIPLiteral: Bool
    /// True when the connection speaks TLS (an https URL).
    public var usesTLS: Bool

    public init(fetchStart: Int64, connectionReady: Int64?, requestEnd: Int64?, responseStart: Int64?, end: Int64,
                curl: CurlTimers, reusedConnection: Bool, hostIsIPLiteral: Bool, usesTLS: Bool,
                socketOpened: Int64? = nil, connected: Int64? = nil) {
        self.fetchStart = fetchStart
        self.connectionReady = connectionReady
        self.socketOpened = socketOpened
        self.connected = connected
        self.requestEnd = requestEnd
        self.responseStart = responseStart
        self.end = end
        self.curl = curl
        self.reusedConnection = reusedConnection
        self.hostIsIPLiteral = hostIsIPLiteral
        self.usesTLS = usesTLS
    }
}

/// libcurl's cumulative `*_TIME_T` values in microseconds (0 where libcurl did not reach that point).
public struct CurlTimers: Sendable, Equatable {
    public var nameLookup: Int64
    public var connect: Int64
    public var appConnect: Int64
    public var preTransfer: Int64
    public var startTransfer: Int64
    public var total: Int64

    public init(nameLookup: Int64 = 0, connect: Int64 = 0, appConnect: Int64 = 0, preTransfer: Int64 = 0,
                startTransfer: Int64 = 0, total: Int64 = 0) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.appConnect = appConnect
        self.preTransfer = preTransfer
        self.startTransfer = startTransfer
        self.total = total
    }
}
