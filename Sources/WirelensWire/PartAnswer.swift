/// The answer to `PUT /upload/{id}/part/{index}`: where the part landed and its SHA-256.
///
/// The uploader checks `offset` and `length` against the segment it sent (a server answering without them does
/// not speak the protocol); the other members are informational and may be absent in a third party's answer.
package struct PartAnswer: WireAnswer {
    package var id: String?
    package var index: Int?
    package var offset: Int64
    package var length: Int64
    package var sha256: String?

    package init(id: String?, index: Int?, offset: Int64, length: Int64, sha256: String?) {
        self.id = id
        self.index = index
        self.offset = offset
        self.length = length
        self.sha256 = sha256
    }

    /// Reads `offset` and `length`; the informational members are nil when absent or of another type.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offset = try container.decode(Int64.self, forKey: .offset)
        length = try container.decode(Int64.self, forKey: .length)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        index = try? container.decodeIfPresent(Int.self, forKey: .index)
        sha256 = try? container.decodeIfPresent(String.self, forKey: .sha256)
    }
}
