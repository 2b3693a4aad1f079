/// What a progress display shows at one instant: bytes moved, the rate, and for segmented uploads the segments.
public struct ProgressSnapshot: Sendable, Equatable {
    /// Time since the run started, µs.
    public var elapsedMicros: Int64
    /// Bytes moved so far (for an upload: file bytes accepted or under way, resends not counted twice).
    public var bytes: Int64
    /// Bytes to move in all, when known.
    public var totalBytes: Int64?
    /// Bytes per second lately, when measured.
    public var bytesPerSecond: Double?
    /// Segment counts of a segmented upload.
    public var segments: SegmentCounts?

    /// Segments of a segmented upload at one instant.
    public struct SegmentCounts: Sendable, Equatable {
        public var done: Int
        public var inFlight: Int
        public var failed: Int

        public init(done: Int, inFlight: Int, failed: Int) {
            self.done = done
            self.inFlight = inFlight
            self.failed = failed
        }
    }

    public init(elapsedMicros: Int64, bytes: Int64, totalBytes: Int64? = nil, bytesPerSecond: Double? = nil,
                segments: SegmentCounts? = nil) {
        self.elapsedMicros = elapsedMicros
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.segments = segments
    }

    /// Seconds left at the current rate, when the total and a positive rate are known.
    public var etaSeconds: Double? {
        guard let total = totalBytes, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(0, total - bytes)) / rate
    }
}
