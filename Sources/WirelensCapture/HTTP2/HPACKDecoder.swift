internal import CNghttp2

/// Decodes HTTP/2 header blocks (HPACK) for one direction of a connection, keeping its dynamic table, through
/// nghttp2's inflater.
final class HPACKDecoder {
    private let inflater: OpaquePointer?

    init() {
        var pointer: OpaquePointer?
        inflater = nghttp2_hd_inflate_new(&pointer) == 0 ? pointer : nil
    }

    deinit {
        if let inflater { nghttp2_hd_inflate_del(inflater) }
    }

    /// The header fields of one complete header block; nil when it does not decode (the table is then lost).
    func decode(_ block: [UInt8]) -> [(name: String, value: String)]? {
        guard let inflater else { return nil }
        var fields: [(String, String)] = []
        var failed = false
        block.withUnsafeBufferPointer { buffer in
            var input = buffer.baseAddress
            var remaining = buffer.count
            // Each call emits at most one field; the loop ends at FINAL, bounded by the block's size.
            for _ in 0...(buffer.count + 1) {
                var field = nghttp2_nv()
                var flags: Int32 = 0
                let used = nghttp2_hd_inflate_hd2(inflater, &field, &flags, input, remaining, 1)
                if used < 0 {
                    failed = true
                    return
                }
                input = input.map { $0 + used }
                remaining -= used
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                    fields.append((String(decoding: UnsafeBufferPointer(start: field.name, count: field.namelen), as: UTF8.self),
                                   String(decoding: UnsafeBufferPointer(start: field.value, count: field.valuelen), as: UTF8.self)))
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                    nghttp2_hd_inflate_end_headers(inflater)
                    return
                }
                if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) == 0 && remaining == 0 { return }
            }
        }
        return failed ? nil : fields
    }
}
