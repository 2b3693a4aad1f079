import WirelensCaptureModel

/// The JSON stream of a capture report and where its bytes go, used by one thread at a time: the write-behind
/// thread while connections arrive (`WriteBehind` owns its consumer until `finish`), then the caller for the totals.
public final class ConnectionJSONWriter {
    private var stream: CaptureJSONRenderer.Stream
    /// Where the bytes go: a non-escaping closure made escaping, so it must be let go (`release`) before the
    /// call that lent it returns.
    private var emit: (([UInt8]) throws -> Void)?

    public init(stream: CaptureJSONRenderer.Stream, emit: @escaping ([UInt8]) throws -> Void) {
        self.stream = stream
        self.emit = emit
    }

    public func add(_ connection: TCPConnection) throws {
        guard let emit else { return }
        try stream.add(connection, emit: emit)
    }

    public func finish(_ report: CaptureReport) throws {
        guard let emit else { return }
        try stream.finish(report, emit: emit)
    }

    /// Drops the reference to `emit`.
    public func release() {
        emit = nil
    }
}
