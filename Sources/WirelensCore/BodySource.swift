/// Where a request body comes from. Bodies are streamed: a file is read in chunks, never loaded whole.
public enum BodySource: Sendable, Equatable {
    /// No body.
    case none
    /// The contents of a file, streamed from disk.
    case file(path: String, size: Int64)
    /// `size` bytes generated on the fly.
    case generated(size: Int64)

    /// The body's length in bytes.
    public var size: Int64 {
        switch self {
        case .none: 0
        case .file(_, let size), .generated(let size): size
        }
    }
}

/// One task of a run: a URL, a method and a body; the engine adds the redirects and retries.
public struct TaskSpec: Sendable, Equatable {
    public var url: String
    public var method: String
    public var body: BodySource
    /// Where the response body goes; nil discards it.
    public var outputPath: String?

    public init(url: String, method: String = "GET", body: BodySource = .none, outputPath: String? = nil) {
        self.url = url
        self.method = method
        self.body = body
        self.outputPath = outputPath
    }
}
