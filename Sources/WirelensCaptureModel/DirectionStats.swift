/// What one direction of a TCP connection carried, and what went wrong on the way.
public struct DirectionStats: Sendable, Equatable {
    /// Packets sent this way (all of them: handshake, pure ACKs, retransmissions).
    public var packets = 0
    /// Bytes of the byte stream (sequence space covered, each byte once, missed bytes included).
    public var bytes: Int64 = 0
    /// Payload bytes on the wire, retransmitted ones counted again.
    public var wireBytes: Int64 = 0
    /// Segments that carried only data already seen (or a FIN / SYN sent again).
    public var retransmissions = 0
    /// Segments that arrived after a later one, within the reordering window.
    public var outOfOrder = 0
    /// Keep-alive probes (one old byte, or none, one below the next expected sequence number).
    public var keepAlives = 0
    /// Packets from this side advertising a zero receive window (this side's reader was not keeping up).
    public var zeroWindow = 0
    /// Data segments from this side that filled the window the other side advertised.
    public var windowFull = 0
    /// The most bytes of this direction in flight at once as the capture saw them: its highest byte beyond the
    /// peer's last acknowledgement (on the receiver's host, what arrived before it was acknowledged: far less than
    /// the sender had in flight); nil before the peer acknowledged any of it.
    public var inFlightMax: Int64?
    /// The window the peer advertised (scaled) when `inFlightMax` was reached; nil when the handshake's window
    /// scaling was not captured.
    public var windowAtInFlightMax: Int64?
    /// The largest window this side advertised as a receiver (scaled); nil when the handshake's window scaling was
    /// not captured.
    public var advertisedWindowMax: Int64?
    /// Resets sent by this side.
    public var resets = 0
    /// Holes in this direction's byte stream that the capture never held (acknowledged by the peer, or never
    /// filled): packets the capture missed, not packets the network lost.
    public var captureGaps = 0
    public var captureGapBytes: Int64 = 0
    /// Payload bytes cut off by the snapshot length.
    public var truncatedBytes: Int64 = 0

    public init() {}
}
