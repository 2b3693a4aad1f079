extension Summary {
    /// Counts opened, reused and distinct connections and the most open at once, holding at most `limit`
    /// connections' spans.
    ///
    /// A connection is open from its handshake to the moment libcurl closed its socket, as a capture counts it (SYN to
    /// FIN or RST). Its span runs from the moment libcurl made its socket (`TransactionMetrics.connectionOpened`, just
    /// before the SYN; else the first transaction's handshake or request) to the close when libcurl closed
    /// it while a transaction was on it (`TransactionMetrics.connectionClosed`: once known, no transaction's own stamp
    /// moves it later), else to its last transaction's end:
    /// a connection left in the pool and closed later (idle, at the end of the run) is counted up to its last use, so
    /// the figure never exceeds what the wire shows, and under a connection limit (libcurl opens a connection only
    /// once another has closed) it is the wire's.
    /// When more than `limit` connections are held, the peak over all held spans is folded in and the half that
    /// ended first is let go. libcurl keeps at most its cache's worth of connections (the concurrency, 8 at least),
    /// so a connection idle while thousands of newer ones were used has been closed: letting it go changes no
    /// count unless the concurrency is in the thousands. Overlaps between a span let go and one that begins later
    /// are then not counted, so the peak can only be understated, and only in runs of more than `limit` connections.
    package struct ConnectionTally: Sendable {
        private var spans: [ConnectionKey: (start: Int64, end: Int64, closed: Bool)] = [:]
        private var opened = 0
        private var reused = 0
        private var distinct = 0
        private var foldedPeak = 0
        /// Spans held at most before the older half is let go.
        package let limit: Int

        /// Spans held by default: 16 384 (about 2 MB).
        package static let defaultLimit = 16_384

        package init(limit: Int = ConnectionTally.defaultLimit) {
            self.limit = max(2, limit)
        }

        /// The spans held now: at most `limit`.
        package var retainedSpans: Int { spans.count }

        /// Takes one transaction into account.
        package mutating func add(_ tx: TransactionMetrics) {
            if tx.openedConnection { opened += 1 }
            if tx.reusedConnection { reused += 1 }
            guard let key = ConnectionKey(tx) else { return }
            let start = tx.connectionOpened ?? tx.timeline.connectStart ?? tx.timeline.requestStart
                ?? tx.timeline.fetchStart
            let end = tx.connectionClosed ?? tx.timeline.responseEnd ?? tx.timeline.requestEnd ?? start
            let closed = tx.connectionClosed != nil
            if let span = spans[key] {
                // Once libcurl closed the socket, that is the end, whatever a transaction's own stamps say.
                let end = span.closed ? span.end : closed ? end : max(span.end, end)
                spans[key] = (min(span.start, start), end, span.closed || closed)
                return
            }
            spans[key] = (start, end, closed)
            distinct += 1
            if spans.count > limit { letGoOfOlderHalf() }
        }

        /// Folds the peak of the held spans in, then lets go of the spans that ended at or before their median end.
        private mutating func letGoOfOlderHalf() {
            foldedPeak = max(foldedPeak, Self.peak(of: spans.values))
            let ends = spans.values.map(\.end).sorted()
            let median = ends[ends.count / 2]
            spans = spans.filter { $0.value.end > median }
        }

        /// The most spans open at one instant: +1 at each start, -1 at each end, ends before starts at the same instant.
        private static func peak<S: Sequence>(of spans: S) -> Int
            where S.Element == (start: Int64, end: Int64, closed: Bool) {
            let events = spans.flatMap { [($0.start, 1), ($0.end, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            var open = 0
            var peak = 0
            for event in events {
                open += event.1
                peak = max(peak, open)
            }
            return peak
        }

        /// The figures so far.
        package var summary: ConnectionSummary {
            ConnectionSummary(opened: opened, reused: reused, distinct: distinct,
                              maxOpenAtOnce: max(foldedPeak, Self.peak(of: spans.values)))
        }
    }
}
