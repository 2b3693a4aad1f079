/// Where a response body goes: nowhere, a file, or memory up to a limit (the counterpart of `BodySource`).
///
/// A 3xx answer the engine follows goes to no sink. Each transaction of a task writes anew (a redirect's target or a
/// retry replaces what the previous one wrote, from its first body byte on), so the sink ends with the body of the
/// last transaction that had one.
public enum ResponseSink: Sendable, Equatable {
    /// Counted, not kept.
    case discard
    /// Written to the file at `path`, replacing it. With `resume` (a resumed download), a 206 answer is appended to
    /// the file instead, and any other non-2xx answer leaves the file alone.
    case file(path: String, resume: Bool)
    /// Kept in memory and returned with the task's record (`TaskRecord.responseBody`), at most `limit` bytes: a longer
    /// body is cut there and marked `truncated`, and the transfer goes on (its byte count is the whole body's).
    case memory(limit: Int)
}

/// A response body kept in memory (`ResponseSink.memory`), returned with its task's record.
public struct ResponseBody: Sendable, Equatable {
    /// The body's bytes, at most the sink's limit.
    public var bytes: [UInt8]
    /// True when the body was longer than the sink's limit: `bytes` holds its first `limit` bytes.
    public var truncated: Bool

    public init(bytes: [UInt8] = [], truncated: Bool = false) {
        self.bytes = bytes
        self.truncated = truncated
    }

    /// The bytes as text (UTF-8, invalid sequences replaced).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
