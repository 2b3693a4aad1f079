import WirelensCaptureModel

/// One side of a connection being tracked: the data it sends and the window it advertises as a receiver.
struct HalfConnection {
    var space = TCPSequenceSpace()
    var stats = DirectionStats()
    var synSeen = false
    /// The window scale option of this side's SYN.
    var scale: UInt8?
    /// The last acknowledgement this side sent, as an offset in the other side's stream.
    var ackOffset: Int64?
    /// The last window this side advertised, as sent.
    var window: UInt16 = 0
    var finSent = false
    /// The HTTP parser has been told this side closed.
    var closeDelivered = false
    /// When the peer last sent a duplicate acknowledgement of this side's stream: a pure ACK at the in-order point
    /// while data beyond a hole was already captured (the receiver asking for the hole to be filled); nil before.
    var duplicateAckAt: Int64?
    /// The offset the peer's duplicate acknowledgements last asked for, and how many in a row asked for it.
    var duplicateAckOffset: Int64 = -1
    var duplicateAcks = 0
}
