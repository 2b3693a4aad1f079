/// Inclusive byte ranges merged into disjoint, sorted runs; answers which bytes of `0..<total` are missing.
package struct CoveredRanges: Sendable, Equatable {
    /// The merged runs as inclusive `[first, last]` pairs, ascending; adjacent runs are joined.
    package private(set) var runs: [ClosedRange<Int64>] = []

    /// Merges the given inclusive ranges.
    package init<S: Sequence>(_ ranges: S) where S.Element == ClosedRange<Int64> {
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = runs.last, range.lowerBound <= last.upperBound + 1 {
                runs[runs.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                runs.append(range)
            }
        }
    }

    /// The inclusive ranges of `0..<total` that no run covers.
    package func missing(total: Int64) -> [ClosedRange<Int64>] {
        var gaps: [ClosedRange<Int64>] = []
        var next: Int64 = 0
        for run in runs {
            guard next < total else { break }
            if run.lowerBound > next { gaps.append(next...min(run.lowerBound, total) - 1) }
            next = max(next, run.upperBound + 1)
        }
        if next < total { gaps.append(next...total - 1) }
        return gaps
    }
}
