/// One snapshot of the kernel's `struct tcp_info` for a socket, read with the length the kernel returned.
///
/// Linux only appends to `struct tcp_info` (`<linux/tcp.h>`), so a field lies at the same offset on every kernel
/// that has it. A field past the length the running kernel returned does not exist there and is nil, never 0:
/// `deliveryRate` needs 4.9, the limited-time stopwatches 4.10, `bytesSent` 4.19, `sendWindow` 5.4, `receiveWindow` 6.3.
/// Times are in microseconds unless named otherwise, sizes in bytes, windows as the kernel keeps them.
///
/// A field the kernel may lack is stored plain (0 when absent) and read through an accessor that says nil past
/// `length`: a snapshot is a flat value, cheap to decode and to copy (every transfer takes two).
public struct TCPInfo: Sendable, Equatable {
    /// How many bytes of the struct the kernel filled (at most `byteCount`): a field past it is nil.
    public let length: Int

    /// The TCP state (`TCP_ESTABLISHED` is 1, `TCP_CLOSE` 7).
    public let state: UInt8
    /// Retransmissions of the segment at the head of the queue, right now (not a total).
    public let retransmits: UInt8
    /// The retransmission timeout.
    public let rto: UInt32
    /// The sender's maximum segment size.
    public let sendMSS: UInt32
    /// The largest segment this end received (its estimate of the peer's segment size).
    public let receiveMSS: UInt32
    /// Segments sent and not yet acknowledged.
    public let unacked: UInt32
    /// Segments the kernel holds lost right now.
    public let lost: UInt32
    /// Segments being retransmitted right now.
    public let retrans: UInt32
    /// Milliseconds since the last data was sent.
    public let lastDataSentMillis: UInt32
    /// Milliseconds since the last data was received.
    public let lastDataReceivedMillis: UInt32
    /// The path MTU.
    public let pathMTU: UInt32
    /// The most the receive window may grow to right now (`tcpi_rcv_ssthresh`), bytes: what the client's buffer
    /// lets it advertise.
    public let receiveSSThreshold: UInt32
    /// The smoothed round-trip time.
    public let rtt: UInt32
    /// The round-trip time's variation.
    public let rttVariance: UInt32
    /// The slow-start threshold in segments (a very large value while none has been set).
    public let sendSSThreshold: UInt32
    /// The congestion window in segments.
    public let congestionWindow: UInt32
    /// The receiver's estimate of the round-trip time (what a receiving client can see of it).
    public let receiveRTT: UInt32
    /// The receive buffer space the kernel grants the connection (its auto-tuned window goal).
    public let receiveSpace: UInt32
    /// Segments retransmitted over the connection's life.
    public let totalRetrans: UInt32
    private var _bytesAcked: UInt64
    private var _bytesReceived: UInt64
    private var _notSentBytes: UInt32
    private var _minRTT: UInt32
    private var _dataSegmentsIn: UInt32
    private var _dataSegmentsOut: UInt32
    private var _deliveryRate: UInt64
    private var _busyTime: UInt64
    private var _receiveWindowLimited: UInt64
    private var _sendBufferLimited: UInt64
    private var _delivered: UInt32
    private var _bytesSent: UInt64
    private var _bytesRetrans: UInt64
    private var _reorderingSeen: UInt32
    private var _outOfOrderPacketsIn: UInt32
    private var _sendWindow: UInt32
    private var _receiveWindow: UInt32
    /// Byte 7: the window scales and the delivery rate's app-limited flag (bit 0).
    private var flags: UInt8

    /// Room for every field read here: up to `tcpi_rcv_wnd` (236 bytes, Linux 6.3); a longer struct is cut there.
    public static let byteCount = 236

    /// The length of the oldest `struct tcp_info` this reads (kernel 2.6: up to `tcpi_total_retrans`).
    public static let minimumLength = 104

    /// Reads a snapshot from the bytes the kernel filled, `length` of them valid; nil when too short to be one.
    public init?(kernelBytes bytes: UnsafeRawBufferPointer, length: Int) {
        let valid = min(length, bytes.count, Self.byteCount)
        guard valid >= Self.minimumLength else { return nil }
        // Fields past `valid` read as 0 here and as nil through their accessors.
        var padded: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                     UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                     UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                                         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        self = withUnsafeMutableBytes(of: &padded) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(valid)))
            return TCPInfo(decoding: UnsafeRawBufferPointer(raw), length: valid)
        }
    }

    /// A snapshot filled by `fill`, which gets room for `byteCount` bytes and gives how many it wrote (nil when it
    /// could not): the socket's reader hands this to `getsockopt`.
    public init?(filling fill: (UnsafeMutableRawPointer, Int) -> Int?) {
        let decoded: TCPInfo? = withUnsafeTemporaryAllocation(byteCount: Self.byteCount, alignment: 8) { raw in
            guard let base = raw.baseAddress else { return nil }
            base.initializeMemory(as: UInt8.self, repeating: 0, count: Self.byteCount)
            guard let written = fill(base, Self.byteCount), written >= Self.minimumLength else { return nil }
            return TCPInfo(decoding: UnsafeRawBufferPointer(raw), length: min(written, Self.byteCount))
        }
        guard let decoded else { return nil }
        self = decoded
    }

    /// Decodes `byteCount` bytes (zero past `length`).
    private init(decoding b: UnsafeRawBufferPointer, length: Int) {
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        self.length = length
        flags = b[7]
        state = b[0]
        retransmits = b[2]
        rto = u32(8)
        sendMSS = u32(16)
        receiveMSS = u32(20)
        unacked = u32(24)
        lost = u32(32)
        retrans = u32(36)
        lastDataSentMillis = u32(44)
        lastDataReceivedMillis = u32(52)
        pathMTU = u32(60)
        receiveSSThreshold = u32(64)
        rtt = u32(68)
        rttVariance = u32(72)
        sendSSThreshold = u32(76)
        congestionWindow = u32(80)
        receiveRTT = u32(92)
        receiveSpace = u32(96)
        totalRetrans = u32(100)
        _bytesAcked = u64(120)
        _bytesReceived = u64(128)
        _notSentBytes = u32(144)
        _minRTT = u32(148)
        _dataSegmentsIn = u32(152)
        _dataSegmentsOut = u32(156)
        _deliveryRate = u64(160)
        _busyTime = u64(168)
        _receiveWindowLimited = u64(176)
        _sendBufferLimited = u64(184)
        _delivered = u32(192)
        _bytesSent = u64(200)
        _bytesRetrans = u64(208)
        _reorderingSeen = u32(220)
        _outOfOrderPacketsIn = u32(224)
        _sendWindow = u32(228)
        _receiveWindow = u32(232)
    }

    /// Bytes acknowledged by the peer over the connection's life (4.1).
    public var bytesAcked: UInt64? { 128 <= length ? _bytesAcked : nil }
    /// Bytes received from the peer over the connection's life (4.1).
    public var bytesReceived: UInt64? { 136 <= length ? _bytesReceived : nil }
    /// Bytes written by the application that the kernel has not sent yet (4.6).
    public var notSentBytes: UInt32? { 148 <= length ? _notSentBytes : nil }
    /// The smallest round-trip time the kernel has seen (4.6).
    public var minRTT: UInt32? { 152 <= length ? _minRTT : nil }
    /// Segments with data received (4.6).
    public var dataSegmentsIn: UInt32? { 156 <= length ? _dataSegmentsIn : nil }
    /// Segments with data sent (4.6).
    public var dataSegmentsOut: UInt32? { 160 <= length ? _dataSegmentsOut : nil }
    /// The most recent delivery rate estimate in bytes per second (4.9).
    public var deliveryRate: UInt64? { 168 <= length ? _deliveryRate : nil }
    /// True when that estimate was taken while the application had nothing to send (4.9): bit 0 of byte 7, beside
    /// the window scales; it has meaning on kernels with the rate.
    public var deliveryRateAppLimited: Bool? { 168 <= length ? (flags & 1) == 1 : nil }
    /// Time with data queued to send (4.10).
    public var busyTime: UInt64? { 176 <= length ? _busyTime : nil }
    /// The part of the busy time when the peer's advertised window was full (4.10).
    public var receiveWindowLimited: UInt64? { 184 <= length ? _receiveWindowLimited : nil }
    /// The part of the busy time when the socket's send buffer was the limit (4.10).
    public var sendBufferLimited: UInt64? { 192 <= length ? _sendBufferLimited : nil }
    /// Segments delivered, retransmissions included (4.18).
    public var delivered: UInt32? { 196 <= length ? _delivered : nil }
    /// Bytes sent, retransmissions included (4.19).
    public var bytesSent: UInt64? { 208 <= length ? _bytesSent : nil }
    /// Bytes retransmitted (4.19).
    public var bytesRetrans: UInt64? { 216 <= length ? _bytesRetrans : nil }
    /// Reordering events seen (4.19).
    public var reorderingSeen: UInt32? { 224 <= length ? _reorderingSeen : nil }
    /// Out-of-order packets received (5.4).
    public var outOfOrderPacketsIn: UInt32? { 228 <= length ? _outOfOrderPacketsIn : nil }
    /// The peer's advertised receive window, in bytes (5.4).
    public var sendWindow: UInt32? { 232 <= length ? _sendWindow : nil }
    /// The receive window this end advertises, in bytes (6.3; Debian 12's header stops before it).
    public var receiveWindow: UInt32? { 236 <= length ? _receiveWindow : nil }

    /// The slow-start threshold, or nil while the kernel has set none (it keeps `TCP_INFINITE_SSTHRESH` then).
    public var slowStartThreshold: UInt32? {
        sendSSThreshold >= 0x7fff_ffff ? nil : sendSSThreshold
    }
}
