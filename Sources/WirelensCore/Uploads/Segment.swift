/// One segment of a segmented upload: the bytes `offset ..< offset + length` of the file, sent as part `index`.
package struct Segment: Sendable, Equatable, Hashable, Codable {
    package var index: Int
    package var offset: Int64
    package var length: Int64

    package init(index: Int, offset: Int64, length: Int64) {
        self.index = index
        self.offset = offset
        self.length = length
    }

    /// The offset just past the segment's last byte.
    package var end: Int64 { offset + length }

    /// The `Content-Range` value for this segment of a file of `total` bytes (`bytes a-b/total`, b inclusive).
    package func contentRange(total: Int64) -> String {
        "bytes \(offset)-\(end - 1)/\(total)"
    }

    /// The part URL from a template: `{index}`, `{number}` (the index plus one, as S3 numbers parts), `{offset}` and
    /// `{length}` replaced by the segment's numbers.
    package func url(fromTemplate template: String) -> String {
        template.replacingOccurrences(of: "{index}", with: String(index))
            .replacingOccurrences(of: "{number}", with: String(index + 1))
            .replacingOccurrences(of: "{offset}", with: String(offset))
            .replacingOccurrences(of: "{length}", with: String(length))
    }
}
