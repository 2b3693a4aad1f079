/// One packet as the read loop hands it over; `bytes` is valid only inside the loop's closure.
public struct CapturedPacket {
    /// Capture time in nanoseconds since the Unix epoch.
    public var timestampNanos: Int64
    /// The packet's length on the wire.
    public var originalLength: Int
    /// The captured bytes (at most the snapshot length).
    public var bytes: UnsafeRawBufferPointer
}
