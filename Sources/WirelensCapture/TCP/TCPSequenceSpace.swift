/// One direction's sequence space: what has arrived in order, what arrived ahead of a hole, and where the FIN is.
///
/// Offsets count bytes of the stream from 0 (the byte after the ISN) as 64-bit integers, so sequence
/// numbers that wrap around stay ordered.
struct TCPSequenceSpace {
    /// A segment that arrived beyond a hole, waiting for the hole to fill; `bytes` holds its captured payload
    /// when the HTTP parser still wants it (possibly fewer bytes than the segment had).
    struct Pending {
        var start: Int64
        var end: Int64
        var bytes: [UInt8]
        var time: Int64
    }

    /// Out-of-order data kept per direction at most (beyond it, ranges are kept without their bytes).
    static let maxPendingBytes = 4 * 1024 * 1024
    static let maxPendingSegments = 4096

    private(set) var known = false
    private(set) var isn: UInt32 = 0
    /// The next offset expected in order.
    private(set) var next: Int64 = 0
    /// The highest segment end seen.
    private(set) var highest: Int64 = 0
    /// When `highest` last grew (µs).
    private(set) var highestAt: Int64 = 0
    /// The offset the FIN occupies, once seen.
    private(set) var fin: Int64?
    private(set) var pending: [Pending] = []
    private var pendingBytes = 0

    /// Starts the space at a SYN (`synSequence` is the ISN) or, without one, so that `sequence` is offset 0.
    mutating func start(isn: UInt32) {
        known = true
        self.isn = isn
        next = 0
        highest = 0
        fin = nil
        pending = []
        pendingBytes = 0
    }

    /// The stream offset of a sequence number, unwrapped near the next expected offset.
    func offset(of sequence: UInt32) -> Int64 {
        let relative = sequence &- (isn &+ 1)
        let delta = Int32(bitPattern: relative &- UInt32(truncatingIfNeeded: next))
        return next + Int64(delta)
    }

    /// Notes a segment's end and returns true when it grew the highest offset.
    mutating func noteEnd(_ end: Int64, time: Int64) -> Bool {
        guard end > highest else { return false }
        highest = end
        highestAt = time
        return true
    }

    mutating func noteFIN(at offset: Int64) {
        if fin == nil { fin = offset }
    }

    /// Moves the in-order point forward by `count` bytes that were delivered (or given up on).
    mutating func advance(by count: Int64) {
        next += count
        if next > highest { highest = next }
    }

    /// Keeps a segment that arrived beyond a hole, in order of its start.
    mutating func hold(start: Int64, end: Int64, payload: UnsafeRawBufferPointer, keepBytes: Bool, time: Int64) {
        let keep = keepBytes && pendingBytes + payload.count <= Self.maxPendingBytes
            && pending.count < Self.maxPendingSegments
        guard keep || pending.count < Self.maxPendingSegments else { return }
        let entry = Pending(start: start, end: end, bytes: keep ? Array(payload) : [], time: time)
        pendingBytes += entry.bytes.count
        let position = pending.firstIndex { $0.start > start } ?? pending.count
        pending.insert(entry, at: position)
    }

    /// Removes and returns the first held segment when it starts at or before the in-order point.
    mutating func popReady() -> Pending? {
        guard let first = pending.first, first.start <= next else { return nil }
        pending.removeFirst()
        pendingBytes -= first.bytes.count
        return first
    }

    /// The start of the first held segment, if any.
    var firstHeldStart: Int64? { pending.first?.start }

    /// When the first of the held segments at or above `offset` arrived: the moment the hole below them opened
    /// (nil when none is held there).
    func firstArrival(atOrAbove offset: Int64) -> Int64? {
        var first: Int64?
        for held in pending where held.start >= offset && held.time < first ?? .max { first = held.time }
        return first
    }

    /// Drops held data (the connection is over).
    mutating func release() {
        pending = []
        pendingBytes = 0
    }
}
