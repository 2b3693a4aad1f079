import WirelensCore

/// The bookkeeping of a segmented upload: which bytes are still to carve into segments, which segments wait
/// for a retry, which are in flight and which succeeded.
///
/// New segments are carved from the file's missing ranges in file order, at the size asked for at each
/// `next(size:)` (fixed or dynamic). A failed segment goes to the tail of the queue: it is sent again only
/// once every other byte of the file has been carved, so a failing segment never holds up the rest. The
/// retry queue, the in-flight set and the success set never share a segment (`invariantViolation`).
package struct SegmentQueue: Sendable, Equatable {
    /// The file's size in bytes.
    package let fileSize: Int64
    /// Ranges of the file not carved into a segment yet, half-open, in file order.
    package private(set) var uncarved: [Range<Int64>]
    /// Failed segments waiting for another attempt, oldest first.
    package private(set) var retryQueue: [Segment] = []
    /// Segments being sent, by index.
    package private(set) var inFlight: [Int: Segment] = [:]
    /// Segments the server accepted, by index.
    package private(set) var succeeded: [Int: Segment] = [:]
    /// Segments that failed more often than their retries allow: the upload cannot complete.
    package private(set) var abandoned: [Int: Segment] = [:]
    /// Failed attempts per segment index.
    package private(set) var failures: [Int: Int] = [:]
    /// When set, a segment carved at a multiple of this size gets index `offset / alignedSize`, so a resumed
    /// fixed-size upload sends its missing segments under their first numbers.
    package let alignedSize: Int64?
    private var nextFreeIndex: Int

    /// What became of a failed attempt.
    package enum FailureOutcome: Sendable, Equatable {
        /// Queued again at the tail; `attempt` is the number of the attempt to come (2 for the first retry).
        case requeued(attempt: Int)
        /// The segment failed `maxRetries + 1` times: the upload cannot complete.
        case exhausted(failures: Int)
    }

    /// A queue for a file of `fileSize` bytes of which the segments `done` were already sent (a resumed upload).
    package init(fileSize: Int64, done: [Segment] = [], alignedSize: Int64? = nil) {
        self.fileSize = fileSize
        self.alignedSize = alignedSize
        var gaps: [Range<Int64>] = []
        var cursor: Int64 = 0
        for segment in done.sorted(by: { $0.offset < $1.offset }) {
            guard segment.offset >= cursor, segment.end <= fileSize, segment.length > 0 else { continue }
            if segment.offset > cursor { gaps.append(cursor..<segment.offset) }
            succeeded[segment.index] = segment
            cursor = segment.end
        }
        if cursor < fileSize { gaps.append(cursor..<fileSize) }
        uncarved = gaps
        nextFreeIndex = (done.map(\.index).max() ?? -1) + 1
        if let alignedSize, alignedSize > 0 {
            nextFreeIndex = max(nextFreeIndex, Int((fileSize + alignedSize - 1) / alignedSize))
        }
    }

    /// True when every byte of the file was accepted by the server.
    package var isComplete: Bool { uncarved.isEmpty && retryQueue.isEmpty && inFlight.isEmpty && abandoned.isEmpty }

    /// True when a segment can be handed out now.
    package var hasReadyWork: Bool { !uncarved.isEmpty || !retryQueue.isEmpty }

    /// Bytes not carved into any segment yet.
    package var uncarvedBytes: Int64 { uncarved.reduce(0) { $0 + $1.upperBound - $1.lowerBound } }

    /// The next segment to send, moved in flight: a new one of at most `size` bytes while any byte is
    /// uncarved, else the oldest failed one; nil when there is nothing to send now.
    package mutating func next(size: Int64) -> Segment? {
        let segment: Segment
        if let gap = uncarved.first {
            let length = min(max(1, size), gap.upperBound - gap.lowerBound)
            let offset = gap.lowerBound
            let index: Int
            if let alignedSize, alignedSize > 0, offset % alignedSize == 0, length == min(alignedSize, fileSize - offset),
               succeeded[Int(offset / alignedSize)] == nil, inFlight[Int(offset / alignedSize)] == nil {
                index = Int(offset / alignedSize)
            } else {
                index = nextFreeIndex
                nextFreeIndex += 1
            }
            segment = Segment(index: index, offset: offset, length: length)
            if offset + length == gap.upperBound { uncarved.removeFirst() } else { uncarved[0] = (offset + length)..<gap.upperBound }
        } else if !retryQueue.isEmpty {
            segment = retryQueue.removeFirst()
        } else {
            return nil
        }
        inFlight[segment.index] = segment
        return segment
    }

    /// Records that the server accepted segment `index`.
    package mutating func succeed(_ index: Int) {
        guard let segment = inFlight.removeValue(forKey: index) else { return }
        succeeded[index] = segment
    }

    /// Records a failed attempt of segment `index`: queued at the tail again, or exhausted after `maxRetries` retries.
    @discardableResult
    package mutating func fail(_ index: Int, maxRetries: Int) -> FailureOutcome {
        guard let segment = inFlight.removeValue(forKey: index) else { return .exhausted(failures: failures[index] ?? 0) }
        let count = (failures[index] ?? 0) + 1
        failures[index] = count
        guard count <= maxRetries else {
            abandoned[index] = segment
            return .exhausted(failures: count)
        }
        retryQueue.append(segment)
        return .requeued(attempt: count + 1)
    }

    /// Puts segment `index` back at the tail of the queue without counting a failure: its attempt was cancelled
    /// (Ctrl-C, SIGTERM), not failed by the server or the network.
    package mutating func release(_ index: Int) {
        guard let segment = inFlight.removeValue(forKey: index) else { return }
        retryQueue.append(segment)
    }

    /// Segments of the file in all: those carved so far (sent, queued, in flight, abandoned) and the ones the
    /// uncarved bytes still make at `size` bytes each.
    package func segmentCount(size: Int64) -> Int {
        let carved = succeeded.count + retryQueue.count + inFlight.count + abandoned.count
        let step = max(1, size)
        return carved + uncarved.reduce(0) { $0 + Int(($1.upperBound - $1.lowerBound + step - 1) / step) }
    }

    /// Segments that failed at least once.
    package var segmentsRetried: Int { failures.count }

    /// A description of the first broken rule, or nil when the queue is consistent: no segment is in two of
    /// the retry queue, the in-flight set and the success set, and the segments and uncarved ranges tile the
    /// file without overlap.
    package var invariantViolation: String? {
        let queued = Set(retryQueue.map(\.index))
        if queued.count != retryQueue.count { return "a segment is queued twice" }
        if !queued.isDisjoint(with: succeeded.keys) { return "a queued segment is also in the success set" }
        if !queued.isDisjoint(with: inFlight.keys) { return "a queued segment is also in flight" }
        if !Set(inFlight.keys).isDisjoint(with: succeeded.keys) { return "a segment in flight is also in the success set" }
        if !Set(abandoned.keys).isDisjoint(with: Set(succeeded.keys).union(inFlight.keys).union(queued)) {
            return "an abandoned segment is also queued, in flight or in the success set"
        }
        var ranges = uncarved
        ranges += retryQueue.map { $0.offset..<$0.end }
        ranges += inFlight.values.map { $0.offset..<$0.end }
        ranges += succeeded.values.map { $0.offset..<$0.end }
        ranges += abandoned.values.map { $0.offset..<$0.end }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var cursor: Int64 = 0
        for range in ranges {
            if range.lowerBound != cursor { return "bytes \(cursor) and \(range.lowerBound) do not meet" }
            cursor = range.upperBound
        }
        return cursor == fileSize ? nil : "the segments end at \(cursor), not at \(fileSize)"
    }
}
