import WirelensCaptureModel

/// One decoded TCP segment: addresses, header fields and the payload bytes the capture holds.
///
/// `payload` points into the packet buffer and is valid only while that buffer is (inside the read loop's
/// closure); `payloadLength` is what the IP header says the segment carried, which is more than
/// `payload.count` when the snapshot length cut the packet.
///
/// The stored properties are ordered so that the small fields fill the padding after each 18-byte endpoint: the
/// segment takes 80 bytes instead of 88, and it is copied at every level a packet goes through.
package struct TCPSegment {
    package var source: Endpoint
    /// The advertised window as sent (not yet scaled).
    package var window: UInt16
    package var sequence: UInt32
    package var destination: Endpoint
    package var flags: TCPFlags
    package var acknowledgement: UInt32
    /// The window scale option (SYN segments only), nil when absent or cut off.
    package var windowScale: UInt8?
    /// Payload bytes the segment carried on the wire.
    package var payloadLength: Int
    /// The captured part of the payload.
    package var payload: UnsafeRawBufferPointer

    /// A segment from its header fields, in header order, and its payload.
    init(source: Endpoint, destination: Endpoint, sequence: UInt32, acknowledgement: UInt32, flags: TCPFlags,
         window: UInt16, windowScale: UInt8?, payloadLength: Int, payload: UnsafeRawBufferPointer) {
        self.source = source
        self.window = window
        self.sequence = sequence
        self.destination = destination
        self.flags = flags
        self.acknowledgement = acknowledgement
        self.windowScale = windowScale
        self.payloadLength = payloadLength
        self.payload = payload
    }

    /// Payload bytes the capture did not keep (snapshot length).
    package var missingPayload: Int { payloadLength - payload.count }
}
