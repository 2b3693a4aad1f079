/// The answer to `GET /upload/{id}`: the upload's total, the byte ranges received (merged, inclusive
/// `[first, last]` pairs) and every part held.
public struct UploadStatus: WireAnswer {
    /// One part the server holds.
    public struct Part: Codable, Sendable, Equatable {
        public var index: Int
        public var offset: Int64
        public var length: Int64

        public init(index: Int, offset: Int64, length: Int64) {
            self.index = index
            self.offset = offset
            self.length = length
        }
    }

    public var id: String
    public var total: Int64
    public var ranges: [[Int64]]
    public var parts: [Part]

    public init(id: String, total: Int64, ranges: [ClosedRange<Int64>], parts: [Part]) {
        self.id = id
        self.total = total
        self.ranges = ranges.map { [$0.lowerBound, $0.upperBound] }
        self.parts = parts
    }
}
