import WirelensCapture
import WirelensCore

/// Writes a capture analysis as its `wirelens.capture/1` JSON document (docs/capture-schema.md): compact,
/// keys in the documented order, `/` not escaped, one trailing newline.
///
/// The connections come right after the file's description and before the totals, so that a document can
/// be written while the capture is read: each connection as it finishes, the summary at the end.
public enum CaptureJSONRenderer {
    /// The whole document of a report that holds its connections.
    public static func render(_ report: CaptureReport) throws -> [UInt8] {
        var whole: [UInt8] = []
        let emit = { (bytes: [UInt8]) in whole.append(contentsOf: bytes) }
        var stream = try Stream(head: report)
        for connection in report.connections { try stream.add(connection, emit: emit) }
        try stream.finish(report, emit: emit)
        return whole
    }

    /// A document written piece by piece: the head, then connections one at a time, then the totals; the bytes
    /// go to `emit` in chunks of about `chunk`.
    public struct Stream {
        private var buffer: [UInt8] = []
        private var count = 0
        private var writer = CaptureConnectionJSONWriter()
        /// Bytes gathered before they are handed to `emit`.
        static let chunk = 1 << 18

        /// Starts the document of `report` (only its file, filter, link type and snapshot length are used).
        public init(head report: CaptureReport) throws {
            var head = report
            head.connections = []
            let bytes = try StreamingJSONEncoder(prettyPrinted: false).encode(head)
            buffer.reserveCapacity(Self.chunk + (1 << 16))
            buffer.append(contentsOf: bytes[..<(try Self.connectionsArray(in: bytes))])
        }

        /// Appends one connection.
        public mutating func add(_ connection: TCPConnection, emit: ([UInt8]) throws -> Void) throws {
            if count > 0 { buffer.append(UInt8(ascii: ",")) }
            count += 1
            writer.append(connection, to: &buffer)
            if buffer.count >= Self.chunk {
                try emit(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }

        /// Ends the document with `report`'s totals (its `connections` are not written again).
        public mutating func finish(_ report: CaptureReport, emit: ([UInt8]) throws -> Void) throws {
            var tail = report
            tail.connections = []
            let bytes = try StreamingJSONEncoder(prettyPrinted: false).encode(tail)
            buffer.append(contentsOf: bytes[(try Self.connectionsArray(in: bytes))...])
            buffer.append(UInt8(ascii: "\n"))
            try emit(buffer)
            buffer = []
        }

        /// The position just inside `"connections":[` of a compact document with no connections.
        private static func connectionsArray(in document: [UInt8]) throws -> Int {
            let marker = Array("\"connections\":[".utf8)
            var i = 0
            while i + marker.count <= document.count {
                if document[i] == marker[0], Array(document[i..<(i + marker.count)]) == marker { return i + marker.count }
                i += 1
            }
            throw EncodingError.invalidValue(document.count, .init(codingPath: [],
                                                                   debugDescription: "no connections array"))
        }
    }
}
