import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensReport

/// The hand-written JSON of a report's `connections` against the Codable bytes, over seeded random values that reach
/// every field present and absent, and the streamed document's connections against the pretty (Codable) one's.
final class ConnectionRecordJSONWriterTests: XCTestCase {
    func testSameBytesAsTheCodablePath() throws {
        var g = SplitMix64(seed: 16)
        let encoder = StreamingJSONEncoder(prettyPrinted: false)
        for _ in 0..<300 {
            let records = (0..<Int.random(in: 0...3, using: &g)).map { _ in RandomReports.connection(&g) }
            var ours: [UInt8] = []
            ConnectionRecordJSONWriter.append(records, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self),
                           String(decoding: try encoder.encode(records), as: UTF8.self))
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
}
