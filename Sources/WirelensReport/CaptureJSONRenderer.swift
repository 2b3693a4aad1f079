import WirelensCaptureModel
import WirelensCore

/// Writes a capture analysis as its `wirelens.capture/1` JSON document (docs/capture-schema.md): compact,
/// keys in the documented order, `/` not escaped, one trailing newline.
///
/// The connections come right after the file's description and before the totals, so that a document can
/// be written while the capture is read: each connection as it finishes, the summary at the end. The other
/// members go through their Codable conformance (`CaptureReport+Encodable`), in `CaptureReport.Member` order,
/// the stream writing only the document's own braces, member names and commas. The connections, most of the
/// document's bytes, have one writer, `CaptureConnectionJSONWriter` (a Codable encoding of them more than doubled
/// the instructions of an analysis written as JSON, reports/bench/capture/RESULTS.md); the tests hold its bytes
/// to a reference encoding of the schema over generated connections.
package enum CaptureJSONRenderer {
    /// The whole document of a report that holds its connections.
    package static func render(_ report: CaptureReport) throws -> [UInt8] {
        var whole: [UInt8] = []
        let emit = { (bytes: [UInt8]) in whole.append(contentsOf: bytes) }
        var stream = try Stream(head: report)
        for connection in report.connections { try stream.add(connection, emit: emit) }
        try stream.finish(report, emit: emit)
        return whole
    }

    /// A document written piece by piece: the head, then connections one at a time, then the totals; the bytes
    /// go to `emit` in chunks of about `chunk`.
    package struct Stream {
        private var buffer: [UInt8] = []
        private var count = 0
        private let encoder = StreamingJSONEncoder(prettyPrinted: false)
        /// The connections' bytes, the Codable encoding's written field by field (`CaptureJSONWriterTests`).
        private var connections = CaptureConnectionJSONWriter()
        /// Bytes gathered before they are handed to `emit`.
        static let chunk = 1 << 18

        /// Starts the document of `report` (only the members before its connections are written).
        package init(head report: CaptureReport) throws {
            buffer.reserveCapacity(Self.chunk + (1 << 16))
            buffer.append(UInt8(ascii: "{"))
            for member in CaptureReport.Member.head {
                try append(member, of: report)
                buffer.append(UInt8(ascii: ","))
            }
            appendName(.connections)
            buffer.append(UInt8(ascii: "["))
        }

        /// Appends one connection.
        package mutating func add(_ connection: TCPConnection, emit: ([UInt8]) throws -> Void) throws {
            if count > 0 { buffer.append(UInt8(ascii: ",")) }
            count += 1
            connections.append(connection, to: &buffer)
            if buffer.count >= Self.chunk {
                try emit(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }

        /// Ends the document with `report`'s totals (its `connections` are not written again).
        package mutating func finish(_ report: CaptureReport, emit: ([UInt8]) throws -> Void) throws {
            buffer.append(UInt8(ascii: "]"))
            for member in CaptureReport.Member.tail {
                buffer.append(UInt8(ascii: ","))
                try append(member, of: report)
            }
            buffer.append(contentsOf: Array("}\n".utf8))
            try emit(buffer)
            buffer = []
        }

        /// Appends `"member":` and the member's value, encoded by its Codable conformance (a member other than
        /// `connections`).
        private mutating func append(_ member: CaptureReport.Member, of report: CaptureReport) throws {
            appendName(member)
            buffer.append(contentsOf: try encoder.encode(report.value(of: member)))
        }

        /// Appends a member's name and the colon.
        private mutating func appendName(_ member: CaptureReport.Member) {
            JSONBytes.appendString(member.stringValue, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
        }
    }
}
