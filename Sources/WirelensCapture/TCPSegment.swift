import WirelensCaptureModel

/// One decoded TCP segment: addresses, header fields and the payload bytes the capture holds.
///
/// `payload` points into the packet buffer and is valid only while that buffer is (inside the read loop's
/// closure); `payloadLength` is what the IP header says the segment carried, which is more than
/// `payload.count` when the snapshot length cut the packet.
public struct TCPSegment {
    public var source: Endpoint
    public var destination: Endpoint
    public var sequence: UInt32
    public var acknowledgement: UInt32
    public var flags: TCPFlags
    /// The advertised window as sent (not yet scaled).
    public var window: UInt16
    /// The window scale option (SYN segments only), nil when absent or cut off.
    public var windowScale: UInt8?
    /// Payload bytes the segment carried on the wire.
    public var payloadLength: Int
    /// The captured part of the payload.
    public var payload: UnsafeRawBufferPointer

    /// Payload bytes the capture did not keep (snapshot length).
    public var missingPayload: Int { payloadLength - payload.count }
}
