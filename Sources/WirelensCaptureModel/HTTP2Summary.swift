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
    /// The server's SETTINGS_INITIAL_WINDOW_SIZE: the window each stream the client opens starts with; nil when
    /// the server's SETTINGS did not set it (65 535 applies) or were not seen.
    public var serverInitialWindowSize: Int64?
    /// The credit the server's WINDOW_UPDATE frames granted the whole connection (stream 0), bytes.
    public var serverConnectionCredit: Int64 = 0

    public init() {}
}
