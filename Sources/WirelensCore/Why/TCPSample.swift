/// The kernel's view of a connection at one moment of a transfer: the few fields drawn over time.
public struct TCPSample: Sendable, Equatable, Codable {
    /// Microseconds since the transfer's first snapshot.
    public var at: Int64
    /// The smoothed round-trip time (µs).
    public var rtt: UInt32
    /// The congestion window in segments.
    public var congestionWindow: UInt32
    /// The delivery rate estimate in bytes per second (nil before kernel 4.9).
    @NullWhenAbsent public var deliveryRate: UInt64?
    /// True when the rate was measured while the sender had nothing to send.
    @NullWhenAbsent public var appLimited: Bool?
    /// The peer's advertised receive window in bytes (nil before kernel 5.4).
    @NullWhenAbsent public var peerWindow: UInt32?
    /// Segments in flight (sent, not yet acknowledged).
    public var unacked: UInt32
    /// Bytes the application wrote that the kernel has not sent yet (nil before kernel 4.6).
    @NullWhenAbsent public var notSent: UInt32?
    /// Bytes acknowledged by the peer since the transfer's first snapshot (nil before kernel 4.1).
    @NullWhenAbsent public var acked: UInt64?
    /// Bytes received since the transfer's first snapshot (nil before kernel 4.1).
    @NullWhenAbsent public var received: UInt64?
    /// The receiver's round-trip estimate (`tcpi_rcv_rtt`, µs; 0 until the kernel measured one).
    @NullWhenAbsent public var receiveRTT: UInt32?
    /// The receive window this end advertised, bytes (nil before kernel 6.3).
    @NullWhenAbsent public var receiveWindow: UInt32?
    /// Bytes that had arrived and the application had not read yet (SIOCINQ; nil when not read).
    @NullWhenAbsent public var receiveQueue: UInt32?
    /// Milliseconds since data last arrived (`tcpi_last_data_recv`).
    @NullWhenAbsent public var sinceReceived: UInt32?

    /// A sample as given (the engine makes them from snapshots).
    public init(at: Int64, rtt: UInt32, congestionWindow: UInt32, deliveryRate: UInt64? = nil, appLimited: Bool? = nil,
                peerWindow: UInt32? = nil, unacked: UInt32 = 0, notSent: UInt32? = nil, acked: UInt64? = nil,
                received: UInt64? = nil, receiveRTT: UInt32? = nil, receiveWindow: UInt32? = nil,
                receiveQueue: UInt32? = nil, sinceReceived: UInt32? = nil) {
        self.at = at
        self.rtt = rtt
        self.congestionWindow = congestionWindow
        self.deliveryRate = deliveryRate
        self.appLimited = appLimited
        self.peerWindow = peerWindow
        self.unacked = unacked
        self.notSent = notSent
        self.acked = acked
        self.received = received
        self.receiveRTT = receiveRTT
        self.receiveWindow = receiveWindow
        self.receiveQueue = receiveQueue
        self.sinceReceived = sinceReceived
    }

    /// The sample of `info`, taken `at` µs after a first snapshot `first` of the same connection, with the receive
    /// queue read beside it (nil: not read).
    public init(_ info: TCPInfo, at: Int64, first: TCPInfo, receiveQueue: UInt32? = nil) {
        self.at = at
        rtt = info.rtt
        congestionWindow = info.congestionWindow
        deliveryRate = info.deliveryRate
        appLimited = info.deliveryRateAppLimited
        peerWindow = info.sendWindow
        unacked = info.unacked
        notSent = info.notSentBytes
        acked = TCPFacts.delta(info.bytesAcked, first.bytesAcked)
        received = TCPFacts.delta(info.bytesReceived, first.bytesReceived)
        receiveRTT = info.receiveRTT
        receiveWindow = info.receiveWindow
        self.receiveQueue = receiveQueue
        sinceReceived = info.lastDataReceivedMillis
    }
}
