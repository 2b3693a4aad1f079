/// Where a request body comes from. Bodies are streamed: a file is read in chunks, never loaded whole.
public enum BodySource: Sendable, Equatable {
    /// No body.
    case none
    /// The contents of a file, streamed from disk.
    case file(path: String, size: Int64)
    /// `size` bytes generated on the fly.
    case generated(size: Int64)
    /// The first `size` bytes a pipe (a FIFO, or stdin fed by another program) delivers, read in order as they come:
    /// read once, never rewound, and the transfer waits while the writer has nothing to give.
    case pipe(path: String, size: Int64)
    /// `length` bytes of a file from `offset` (one segment of a segmented upload), read at that offset.
    case fileRange(path: String, offset: Int64, length: Int64)
    /// A body assembled in order from pieces: literal bytes and file ranges (a multipart form).
    case pieces(BodyPieces)

    /// The body's length in bytes.
    public var size: Int64 {
        switch self {
        case .none: 0
        case .file(_, let size), .generated(let size), .pipe(_, let size): size
        case .fileRange(_, _, let length): length
        case .pieces(let pieces): pieces.size
        }
    }
}

/// One piece of an assembled body.
public enum BodyPiece: Sendable, Equatable {
    /// Bytes held in memory (a multipart part's headers and delimiters, a text field's value).
    case bytes([UInt8])
    /// `length` bytes of a file from `offset`.
    case file(path: String, offset: Int64, length: Int64)

    /// The piece's length in bytes.
    public var size: Int64 {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .file(_, _, let length): length
        }
    }
}

/// Body pieces in order, with where each starts in the body, so a read at any offset finds its piece at once.
public struct BodyPieces: Sendable, Equatable {
    public let pieces: [BodyPiece]
    /// The body offset at which each piece starts.
    public let starts: [Int64]
    /// The body's length in bytes.
    public let size: Int64

    public init(_ pieces: [BodyPiece]) {
        var starts: [Int64] = []
        var offset: Int64 = 0
        for piece in pieces {
            starts.append(offset)
            offset += piece.size
        }
        self.pieces = pieces
        self.starts = starts
        self.size = offset
    }

    /// The index of the piece holding the byte at `offset` (nil at or past the end).
    public func pieceIndex(at offset: Int64) -> Int? {
        guard offset >= 0, offset < size else { return nil }
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        // Empty pieces share their start with the next one: move past them.
        while pieces[low].size == 0 { low += 1 }
        return low
    }
}
