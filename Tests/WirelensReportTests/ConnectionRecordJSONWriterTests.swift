import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensReport

/// The hand-written JSON of a report's `connections`, read back by Foundation's decoder, over seeded random values
/// that reach every field present and absent, and the streamed document's connections as the report's.
final class ConnectionRecordJSONWriterTests: XCTestCase {
    func testSeededConnectionsReadBackAsWritten() throws {
        var g = SplitMix64(seed: 16)
        for i in 0..<300 {
            let records = (0..<Int.random(in: 0...3, using: &g)).map { _ in RandomReports.connection(&g) }
            var ours: [UInt8] = []
            ConnectionRecordJSONWriter.append(records, to: &ours)
            XCTAssertEqual(try JSONDecoder().decode([ConnectionRecord].self, from: Data(ours)), records, "records \(i)")
        }
    }

    /// A report written compact in parts (its connections by the hand writer) reads back equal to the one written.
    func testStreamedReportReadsBackWithItsConnections() throws {
        var g = SplitMix64(seed: 7)
        var report = Fixtures.report(tasks: (0..<3).map { RandomReports.task(index: $0, &g) })
        report.connections = (0..<4).map { _ in RandomReports.connection(&g) }
        var bytes: [UInt8] = []
        try JSONRenderer.render(report, compactAbove: 0) { bytes.append(contentsOf: $0) }
        let back = try JSONRenderer.decode(Data(bytes))
        XCTAssertEqual(back.connections, report.connections)
    }

    /// A run's document (the connections last) hands its connections over one piece at a time, not as one
    /// buffer: their lists of transactions grow with the run.
    func testStreamedRunHandsItsConnectionsOverInPieces() throws {
        var g = SplitMix64(seed: 9)
        var report = Fixtures.report(tasks: (0..<3).map { RandomReports.task(index: $0, &g) })
        report.connections = (0..<4).map { _ in RandomReports.connection(&g) }
        var stream = try JSONRenderer.Stream(head: report, chunkSize: 64)
        for task in report.tasks { try stream.add(task, emit: { _ in }) }
        var bytes: [UInt8] = []
        var pieces = 0
        try stream.finish(report) { piece in
            bytes.append(contentsOf: piece)
            pieces += 1
        }
        XCTAssertGreaterThanOrEqual(pieces, report.connections.count + 1, "a piece per connection, then the end")
        let codable = try StreamingJSONEncoder(prettyPrinted: false).encode(report.connections)
        XCTAssertTrue(String(decoding: bytes, as: UTF8.self)
                        .hasSuffix("\"connections\":" + String(decoding: codable, as: UTF8.self) + "}\n"))
    }
}
