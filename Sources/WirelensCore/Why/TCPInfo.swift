/// One snapshot of the kernel's `struct tcp_info` for a socket, read with the length the kernel returned.
///
/// Linux only appends to `struct tcp_info` (`<linux/tcp.h>`), so a field lies at the same offset on every kernel
/// that has it. A field past the length the running kernel returned does not exist there and is nil, never 0:
/// `deliveryRate` needs 4.9, the limited-time stopwatches 4.10, `bytesSent` 4.19, `sendWindow` 5.4.
/// Times are in microseconds unless named otherwise, sizes in bytes, windows as the kernel keeps them.
public struct TCPInfo: Sendable, Equatable, Codable {
    /// The TCP state (`TCP_ESTABLISHED` is 1, `TCP_CLOSE` 7).
    public var state: UInt8
    /// Retransmissions of the segment at the head of the queue, right now (not a total).
    public var retransmits: UInt8
    /// The retransmission timeout.
    public var rto: UInt32
    /// The sender's maximum segment size.
    public var sendMSS: UInt32
    /// Segments sent and not yet acknowledged.
    public var unacked: UInt32
    /// Segments the kernel holds lost right now.
    public var lost: UInt32
    /// Segments being retransmitted right now.
    public var retrans: UInt32
    /// Milliseconds since the last data was sent.
    public var lastDataSentMillis: UInt32
    /// Milliseconds since the last data was received.
    public var lastDataReceivedMillis: UInt32
    /// The path MTU.
    public var pathMTU: UInt32
    /// The smoothed round-trip time.
    public var rtt: UInt32
    /// The round-trip time's variation.
    public var rttVariance: UInt32
    /// The slow-start threshold in segments (a very large value while none has been set).
    public var sendSSThreshold: UInt32
    /// The congestion window in segments.
    public var congestionWindow: UInt32
    /// The receiver's estimate of the round-trip time (what a receiving client can see of it).
    public var receiveRTT: UInt32
    /// The receive buffer space the kernel grants the connection (its auto-tuned window goal).
    public var receiveSpace: UInt32
    /// Segments retransmitted over the connection's life.
    public var totalRetrans: UInt32
    /// Bytes acknowledged by the peer over the connection's life (4.1).
    public var bytesAcked: UInt64?
    /// Bytes received from the peer over the connection's life (4.1).
    public var bytesReceived: UInt64?
    /// Bytes written by the application that the kernel has not sent yet (4.6).
    public var notSentBytes: UInt32?
    /// The smallest round-trip time the kernel has seen (4.6).
    public var minRTT: UInt32?
    /// Segments with data received (4.6).
    public var dataSegmentsIn: UInt32?
    /// Segments with data sent (4.6).
    public var dataSegmentsOut: UInt32?
    /// The most recent delivery rate estimate in bytes per second (4.9).
    public var deliveryRate: UInt64?
    /// True when that estimate was taken while the application had nothing to send (4.9).
    public var deliveryRateAppLimited: Bool?
    /// Time with data queued to send (4.10).
    public var busyTime: UInt64?
    /// The part of the busy time when the peer's advertised window was full (4.10).
    public var receiveWindowLimited: UInt64?
    /// The part of the busy time when the socket's send buffer was the limit (4.10).
    public var sendBufferLimited: UInt64?
    /// Segments delivered, retransmissions included (4.18).
    public var delivered: UInt32?
    /// Bytes sent, retransmissions included (4.19).
    public var bytesSent: UInt64?
    /// Bytes retransmitted (4.19).
    public var bytesRetrans: UInt64?
    /// Reordering events seen (4.19).
    public var reorderingSeen: UInt32?
    /// Out-of-order packets received (5.4).
    public var outOfOrderPacketsIn: UInt32?
    /// The peer's advertised receive window, in bytes (5.4).
    public var sendWindow: UInt32?

    /// The length of the oldest `struct tcp_info` this reads (kernel 2.6: up to `tcpi_total_retrans`).
    public static let minimumLength = 104

    /// Reads a snapshot from the bytes the kernel filled, `length` of them valid; nil when too short to be one.
    public init?(kernelBytes bytes: UnsafeRawBufferPointer, length: Int) {
        let valid = min(length, bytes.count)
        guard valid >= Self.minimumLength else { return nil }
        func u8(_ offset: Int) -> UInt8 { bytes[offset] }
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        func u32(_ offset: Int, ifWithin valid: Int) -> UInt32? { offset + 4 <= valid ? u32(offset) : nil }
        func u64(_ offset: Int, ifWithin valid: Int) -> UInt64? { offset + 8 <= valid ? u64(offset) : nil }
        state = u8(0)
        retransmits = u8(2)
        rto = u32(8)
        sendMSS = u32(16)
        unacked = u32(24)
        lost = u32(32)
        retrans = u32(36)
        lastDataSentMillis = u32(44)
        lastDataReceivedMillis = u32(52)
        pathMTU = u32(60)
        rtt = u32(68)
        rttVariance = u32(72)
        sendSSThreshold = u32(76)
        congestionWindow = u32(80)
        receiveRTT = u32(92)
        receiveSpace = u32(96)
        totalRetrans = u32(100)
        bytesAcked = u64(120, ifWithin: valid)
        bytesReceived = u64(128, ifWithin: valid)
        notSentBytes = u32(144, ifWithin: valid)
        minRTT = u32(148, ifWithin: valid)
        dataSegmentsIn = u32(152, ifWithin: valid)
        dataSegmentsOut = u32(156, ifWithin: valid)
        deliveryRate = u64(160, ifWithin: valid)
        // The flag is bit 0 of byte 7, beside the window scales; it has meaning on kernels with the rate (4.9).
        deliveryRateAppLimited = deliveryRate == nil ? nil : (u8(7) & 1) == 1
        busyTime = u64(168, ifWithin: valid)
        receiveWindowLimited = u64(176, ifWithin: valid)
        sendBufferLimited = u64(184, ifWithin: valid)
        delivered = u32(192, ifWithin: valid)
        bytesSent = u64(200, ifWithin: valid)
        bytesRetrans = u64(208, ifWithin: valid)
        reorderingSeen = u32(220, ifWithin: valid)
        outOfOrderPacketsIn = u32(224, ifWithin: valid)
        sendWindow = u32(228, ifWithin: valid)
    }

    /// The slow-start threshold, or nil while the kernel has set none (it keeps `TCP_INFINITE_SSTHRESH` then).
    public var slowStartThreshold: UInt32? {
        sendSSThreshold >= 0x7fff_ffff ? nil : sendSSThreshold
    }
}
