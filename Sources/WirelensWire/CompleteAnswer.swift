/// The answer to `POST /upload/{id}/complete` when every byte arrived: the assembled file's size and SHA-256
/// (lowercase hex), which the uploader compares with the file's.
///
/// `id` and `parts` are informational: a server named by `--complete-url` may answer the size and digest alone.
package struct CompleteAnswer: WireAnswer {
    package var id: String?
    package var size: Int64
    package var sha256: String
    package var parts: Int?

    package init(id: String?, size: Int64, sha256: String, parts: Int?) {
        self.id = id
        self.size = size
        self.sha256 = sha256
        self.parts = parts
    }

    /// Reads `size` and `sha256`; the informational members are nil when absent or of another type.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Int64.self, forKey: .size)
        sha256 = try container.decode(String.self, forKey: .sha256)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        parts = try? container.decodeIfPresent(Int.self, forKey: .parts)
    }
}
