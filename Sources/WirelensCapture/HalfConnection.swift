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
}
