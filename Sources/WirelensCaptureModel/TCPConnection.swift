/// One TCP connection, from its SYN to its close (or the edges of the capture); times in µs since the epoch.
///
/// A 4-tuple can carry several connections one after the other (loopback reuses ports straight out of
/// TIME_WAIT), so connections are told apart by their handshakes, not by their addresses.
public struct TCPConnection: Sendable, Equatable {
    /// How the connection ended within the capture.
    public enum End: String, Sendable {
        /// Both sides sent a FIN.
        case closed
        /// One side sent a reset.
        case reset
        /// Only one side sent a FIN before the capture ended.
        case halfClosed = "half-closed"
        /// Still open when the capture ended.
        case open
    }

    /// Which side did something.
    public enum Side: String, Sendable {
        case client, server
    }

    /// A silence on the connection of at least `idleThreshold`.
    public struct IdleGap: Sendable, Equatable {
        public var startAt: Int64
        public var duration: Int64

        public init(startAt: Int64, duration: Int64) {
            self.startAt = startAt
            self.duration = duration
        }
    }

    /// The connection's number in order of first packets in the file, from 0 (the report lists connections
    /// in this order when it holds them all; a streamed JSON report lists them as they finish).
    public var index = 0
    /// The side that sent the SYN (without a handshake in the capture: the side whose first line is a request
    /// line, or whose peer's is a status line; without either, the side with the higher port).
    public var client: Endpoint
    public var server: Endpoint
    /// Initial sequence numbers; nil when that side's SYN was not captured.
    public var clientISN: UInt32?
    public var serverISN: UInt32?
    public var firstPacketAt: Int64
    public var lastPacketAt: Int64
    /// The handshake's packets; nil for those not captured.
    public var synAt: Int64?
    /// The client's last SYN before the handshake completed: `synAt`, or the retransmitted SYN the SYN/ACK answered.
    public var lastSynAt: Int64?
    public var synAckAt: Int64?
    public var handshakeAckAt: Int64?
    /// When the client's first payload byte was captured (its request, or its TLS ClientHello); not in the JSON.
    public var clientFirstDataAt: Int64?
    public var clientToServer = DirectionStats()
    public var serverToClient = DirectionStats()
    public var end = End.open
    /// The side whose FIN or RST came first; nil while both kept it open.
    public var closedBy: Side?
    /// When that first FIN or RST was captured: the end of the connection's use.
    public var closeStartedAt: Int64?
    public var idleGaps: [IdleGap] = []
    /// Number of idle gaps (the list keeps the first `maxIdleGapsListed`).
    public var idleGapCount = 0
    /// The longest silence between two packets of the connection.
    public var longestSilence: Int64 = 0
    /// "http/1.x", "h2c", "tls", "other", or nil when no payload was seen.
    public var applicationProtocol: String?
    /// The clear-text TLS handshake fields, for a TLS connection.
    public var tls: TLSInfo?
    /// Frame-level figures, for an HTTP/2 connection in clear text.
    public var http2: HTTP2Summary?
    public var exchanges: [HTTPExchange] = []
    /// What the analysis could not see on this connection.
    public var notes: [String] = []

    /// Silences at least this long (µs) are listed as idle gaps.
    public static let idleThreshold: Int64 = 1_000_000
    /// At most this many idle gaps are listed per connection.
    public static let maxIdleGapsListed = 16

    public init(client: Endpoint, server: Endpoint, firstPacketAt: Int64) {
        self.client = client
        self.server = server
        self.firstPacketAt = firstPacketAt
        lastPacketAt = firstPacketAt
    }

    /// First to last packet.
    public var duration: Int64 { lastPacketAt - firstPacketAt }

    /// SYN to the ACK of the SYN/ACK, when the whole handshake was captured: the connect phase, with the time a
    /// retransmitted SYN waited.
    public var handshakeTime: Int64? {
        guard let synAt, let handshakeAckAt else { return nil }
        return handshakeAckAt - synAt
    }

    /// The path's round trip as the handshake shows it: the client's last SYN to its ACK of the SYN/ACK, as tshark's
    /// `tcp.analysis.initial_rtt` (a SYN sent again after a lost SYN or SYN/ACK restarts it), when captured whole.
    public var handshakeRoundTrip: Int64? {
        guard let lastSynAt, let handshakeAckAt else { return nil }
        return handshakeAckAt - lastSynAt
    }

    /// The end of the connection's use: its first FIN or RST, else its last packet. Concurrency counts a
    /// connection from its first packet to here, so that a closing connection and its replacement do not overlap.
    public var inUseUntil: Int64 { closeStartedAt ?? lastPacketAt }

    /// True when the capture holds the client's SYN: the connection began inside the capture.
    public var handshakeSeen: Bool { synAt != nil }

    /// Bytes per second of one direction over the connection's duration; nil for a zero duration.
    public static func throughput(_ bytes: Int64, over duration: Int64) -> Double? {
        duration > 0 ? Double(bytes) * 1e6 / Double(duration) : nil
    }
}
