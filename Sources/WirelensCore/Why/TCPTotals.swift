/// The kernel's counters of a connection over its life up to one snapshot: what `TCPFacts` states per transfer as
/// differences, here as the totals the kernel keeps since the connection was made.
///
/// A field the running kernel lacks is nil, never 0 (see `TCPInfo`).
public struct TCPTotals: Sendable, Equatable, Codable {
    /// Bytes sent, retransmissions included (4.19).
    @NullWhenAbsent public var bytesSent: UInt64?
    /// Bytes the peer acknowledged (4.1).
    @NullWhenAbsent public var bytesAcked: UInt64?
    /// Bytes received (4.1).
    @NullWhenAbsent public var bytesReceived: UInt64?
    /// Bytes retransmitted (4.19).
    @NullWhenAbsent public var bytesRetransmitted: UInt64?
    /// Segments retransmitted.
    public var segmentsRetransmitted: UInt32
    /// Segments with data sent and received (4.6).
    @NullWhenAbsent public var dataSegmentsOut: UInt32?
    @NullWhenAbsent public var dataSegmentsIn: UInt32?
    /// Out-of-order packets received (5.4).
    @NullWhenAbsent public var outOfOrderPacketsIn: UInt32?
    /// The smallest round-trip time the kernel saw on the connection (µs; 4.6).
    @NullWhenAbsent public var minRTT: UInt32?
    /// The smoothed round-trip time at the snapshot (µs).
    public var smoothedRTT: UInt32
    /// Time with data queued to send, and the parts of it the peer's window and the send buffer were the limit
    /// (µs; 4.10).
    @NullWhenAbsent public var busy: UInt64?
    @NullWhenAbsent public var receiveWindowLimited: UInt64?
    @NullWhenAbsent public var sendBufferLimited: UInt64?

    /// Totals as given.
    public init(bytesSent: UInt64?, bytesAcked: UInt64?, bytesReceived: UInt64?, bytesRetransmitted: UInt64?,
                segmentsRetransmitted: UInt32, dataSegmentsOut: UInt32?, dataSegmentsIn: UInt32?,
                outOfOrderPacketsIn: UInt32?, minRTT: UInt32?, smoothedRTT: UInt32, busy: UInt64?,
                receiveWindowLimited: UInt64?, sendBufferLimited: UInt64?) {
        self.bytesSent = bytesSent
        self.bytesAcked = bytesAcked
        self.bytesReceived = bytesReceived
        self.bytesRetransmitted = bytesRetransmitted
        self.segmentsRetransmitted = segmentsRetransmitted
        self.dataSegmentsOut = dataSegmentsOut
        self.dataSegmentsIn = dataSegmentsIn
        self.outOfOrderPacketsIn = outOfOrderPacketsIn
        self.minRTT = minRTT
        self.smoothedRTT = smoothedRTT
        self.busy = busy
        self.receiveWindowLimited = receiveWindowLimited
        self.sendBufferLimited = sendBufferLimited
    }

    /// The totals in a snapshot.
    public init(_ info: TCPInfo) {
        self.init(bytesSent: info.bytesSent, bytesAcked: info.bytesAcked, bytesReceived: info.bytesReceived,
                  bytesRetransmitted: info.bytesRetrans, segmentsRetransmitted: info.totalRetrans,
                  dataSegmentsOut: info.dataSegmentsOut, dataSegmentsIn: info.dataSegmentsIn,
                  outOfOrderPacketsIn: info.outOfOrderPacketsIn, minRTT: info.minRTT, smoothedRTT: info.rtt,
                  busy: info.busyTime, receiveWindowLimited: info.receiveWindowLimited,
                  sendBufferLimited: info.sendBufferLimited)
    }
}
