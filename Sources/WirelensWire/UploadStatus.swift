/// The answer to `GET /upload/{id}`: the upload's total, the byte ranges received (merged, inclusive
/// `[first, last]` pairs) and every part held.
package struct UploadStatus: WireAnswer {
    /// One part the server holds.
    package struct Part: Codable, Sendable, Equatable {
        package var index: Int
        package var offset: Int64
        package var length: Int64

        package init(index: Int, offset: Int64, length: Int64) {
            self.index = index
            self.offset = offset
            self.length = length
        }
    }

    package var id: String
    package var total: Int64
    package var ranges: [[Int64]]
    package var parts: [Part]

    package init(id: String, total: Int64, ranges: [ClosedRange<Int64>], parts: [Part]) {
        self.id = id
        self.total = total
        self.ranges = ranges.map { [$0.lowerBound, $0.upperBound] }
        self.parts = parts
    }
}
