/// The 409 answer to `POST /upload/{id}/complete` while bytes are missing: the missing inclusive byte ranges as
/// `[first, last]` pairs, ascending.
package struct MissingRangesAnswer: WireAnswer {
    /// The one-line reason every error answer of the target carries.
    package var error: String
    package var missing: [[Int64]]

    package init(missing: [ClosedRange<Int64>]) {
        error = "missing ranges"
        self.missing = missing.map { [$0.lowerBound, $0.upperBound] }
    }
}
