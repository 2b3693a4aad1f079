import WirelensCaptureModel

/// The JSON stream of a capture report and where its bytes go, used by one thread at a time: the write-behind
/// thread while connections arrive (`WriteBehind` owns its consumer until `finish`), then the caller for the totals.
package final class ConnectionJSONWriter {
    private var stream: CaptureJSONRenderer.Stream
    /// Where the bytes go: a non-escaping closure made escaping, so it must be let go (`release`) before the
    /// call that lent it returns.
    private var emit: (([UInt8]) throws -> Void)?

    package init(stream: CaptureJSONRenderer.Stream, emit: @escaping ([UInt8]) throws -> Void) {
        self.stream = stream
        self.emit = emit
    }

    package func add(_ connection: TCPConnection) throws {
        guard let emit else { return }
        try stream.add(connection, emit: emit)
    }

    package func finish(_ report: CaptureReport) throws {
        guard let emit else { return }
        try stream.finish(report, emit: emit)
    }

    /// Drops the reference to `emit`.
    package func release() {
        emit = nil
    }
}
