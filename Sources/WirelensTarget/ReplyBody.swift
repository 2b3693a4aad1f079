import NIOCore

/// The body of a reply.
enum ReplyBody: Sendable {
    case empty
    case bytes(ByteBuffer)
    /// `count` pattern bytes (see PatternBytes) starting at resource offset `offset`.
    case pattern(offset: Int64, count: Int64)

    /// The body's length in bytes.
    var count: Int64 {
        switch self {
        case .empty: 0
        case .bytes(let buffer): Int64(buffer.readableBytes)
        case .pattern(_, let count): count
        }
    }

    /// The resource offset of the body's first byte (0 unless it is a range of `/bytes`).
    var resourceOffset: Int64 {
        if case .pattern(let offset, _) = self { return offset }
        return 0
    }

    /// Where a `reset_after=N` fault cuts this body, in body bytes sent before the reset; nil when it is sent whole.
    ///
    /// N counts in resource offsets: a body (a range of `/bytes`) that starts at or beyond N, or ends before it,
    /// is sent whole, so a download interrupted at N resumes from N without a second reset.
    func resetPoint(after n: Int64) -> Int64? {
        let offset = resourceOffset
        guard offset == 0 || n > offset, n - offset < count else { return nil }
        return n - offset
    }
}
