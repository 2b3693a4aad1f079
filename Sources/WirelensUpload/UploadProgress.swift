import Synchronization

/// A segmented upload's counters for a progress display: written by the uploader, read from any thread.
package final class UploadProgress: Sendable {
    private let doneCount = Atomic<Int>(0)
    private let inFlightCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)
    private let wasted = Atomic<Int64>(0)
    private let skipped = Atomic<Int64>(0)

    package init() {}

    /// Segments accepted (resumed ones included).
    package var done: Int { doneCount.load(ordering: .relaxed) }
    /// Segments being sent.
    package var inFlight: Int { inFlightCount.load(ordering: .relaxed) }
    /// Failed attempts.
    package var failed: Int { failedCount.load(ordering: .relaxed) }
    /// Request body bytes of failed attempts.
    package var wastedBytes: Int64 { wasted.load(ordering: .relaxed) }
    /// File bytes a journal said were already sent.
    package var skippedBytes: Int64 { skipped.load(ordering: .relaxed) }

    func started() { inFlightCount.add(1, ordering: .relaxed) }
    func succeeded() {
        inFlightCount.subtract(1, ordering: .relaxed)
        doneCount.add(1, ordering: .relaxed)
    }
    func failed(sentBytes: Int64) {
        inFlightCount.subtract(1, ordering: .relaxed)
        failedCount.add(1, ordering: .relaxed)
        wasted.add(sentBytes, ordering: .relaxed)
    }
    func resumed(segments: Int, bytes: Int64) {
        doneCount.add(segments, ordering: .relaxed)
        skipped.add(bytes, ordering: .relaxed)
    }
}
