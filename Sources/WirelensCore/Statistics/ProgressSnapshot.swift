/// What a progress display shows at one instant: bytes moved, the rate, and for segmented uploads the segments.
package struct ProgressSnapshot: Sendable, Equatable {
    /// Time since the run started, µs.
    package var elapsedMicros: Int64
    /// Bytes moved so far (for an upload: file bytes accepted or under way, resends not counted twice).
    package var bytes: Int64
    /// Bytes to move in all, when known.
    package var totalBytes: Int64?
    /// Bytes per second lately, when measured.
    package var bytesPerSecond: Double?
    /// Segment counts of a segmented upload.
    package var segments: SegmentCounts?

    /// Segments of a segmented upload at one instant.
    package struct SegmentCounts: Sendable, Equatable {
        package var done: Int
        package var inFlight: Int
        package var failed: Int

        package init(done: Int, inFlight: Int, failed: Int) {
            self.done = done
            self.inFlight = inFlight
            self.failed = failed
        }
    }

    package init(elapsedMicros: Int64, bytes: Int64, totalBytes: Int64? = nil, bytesPerSecond: Double? = nil,
                segments: SegmentCounts? = nil) {
        self.elapsedMicros = elapsedMicros
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.segments = segments
    }

    /// Seconds left at the current rate, when the total and a positive rate are known.
    package var etaSeconds: Double? {
        guard let total = totalBytes, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(0, total - bytes)) / rate
    }
}
