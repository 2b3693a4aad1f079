/// What an HTTP/2 connection carried at the frame level.
public struct HTTP2Summary: Sendable, Equatable {
    /// Frames each way.
    public var clientFrames = 0
    public var serverFrames = 0
    /// Streams the client opened (one exchange each).
    public var streams = 0
    /// The most streams open at once (request begun, response not ended nor reset).
    public var maxConcurrentStreams = 0
    /// Streams ended by RST_STREAM.
    public var resetStreams = 0

    public init() {}
}
