/// The 409 answer to `POST /upload/{id}/complete` while bytes are missing: the missing inclusive byte ranges as
/// `[first, last]` pairs, ascending.
public struct MissingRangesAnswer: WireAnswer {
    /// The one-line reason every error answer of the target carries.
    public var error: String
    public var missing: [[Int64]]

    public init(missing: [ClosedRange<Int64>]) {
        error = "missing ranges"
        self.missing = missing.map { [$0.lowerBound, $0.upperBound] }
    }
}
