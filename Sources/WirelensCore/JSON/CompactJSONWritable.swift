/// A value of a schema that has a byte writer of its own: it writes its compact JSON bytes itself, and the one
/// JSON writer (`JSONWriter`, so `StreamingJSONEncoder` too) takes them as they are, indented when its document is.
///
/// Its `encode(to:)` is only for other encoders (Foundation's, in tests): the byte writer stays the only writer
/// of the schema's bytes.
package protocol CompactJSONWritable {
    /// Appends the value's compact JSON text to `bytes`.
    func appendCompactJSON(to bytes: inout [UInt8])
}

extension CompactJSONWritable {
    /// The value's bytes as they are for the one JSON writer; for any other encoder (Foundation's), read back as a
    /// tree of JSON values and encoded through it, member order kept.
    package func encodeCompactJSON(to encoder: Encoder) throws {
        var bytes: [UInt8] = []
        appendCompactJSON(to: &bytes)
        try JSONTree(parsing: bytes).encode(to: encoder)
    }
}
