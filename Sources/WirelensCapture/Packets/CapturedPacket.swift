/// One packet as the read loop hands it over; `bytes` is valid only inside the loop's closure.
package struct CapturedPacket {
    /// Capture time in nanoseconds since the Unix epoch.
    package var timestampNanos: Int64
    /// The packet's length on the wire.
    package var originalLength: Int
    /// The captured bytes (at most the snapshot length).
    package var bytes: UnsafeRawBufferPointer
}
