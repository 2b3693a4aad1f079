import Foundation
import WirelensCore
import WirelensReport
import XCTest

final class JSONRendererTests: XCTestCase {
    private func object(_ report: Report) throws -> [String: Any] {
        let text = try JSONRenderer.render(report)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func transactions(_ json: [String: Any], task: Int = 0) throws -> [[String: Any]] {
        let tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        return try XCTUnwrap(tasks[task]["transactions"] as? [[String: Any]])
    }

    func testRoundTripsToAnEqualReport() throws {
        for report in [Fixtures.report(tasks: [Fixtures.redirectTask()]),
                       Fixtures.report(tasks: [Fixtures.dnsFailureTask()]),
                       Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true),
                       Fixtures.report(tasks: []), Fixtures.uploadReport(tasks: Fixtures.manyTasks())] {
            let text = try JSONRenderer.render(report)
            let decoded = try JSONRenderer.decode(Data(text.utf8))
            XCTAssertEqual(decoded, report)
            // A second pass writes the same bytes.
            XCTAssertEqual(try JSONRenderer.render(decoded), text)
        }
    }

    func testWritesSchemaPrettyPrintedWithUnescapedSlashesAndTrailingNewline() throws {
        let text = try JSONRenderer.render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        XCTAssertTrue(text.hasSuffix("}\n"))
        XCTAssertTrue(text.contains("\n  "), "pretty-printed")
        XCTAssertTrue(text.contains("https://localhost:8443/store"))
        XCTAssertFalse(text.contains("\\/"))
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        XCTAssertEqual(json?["schema"] as? String, "wirelens.report/2")
    }

    func testReusedTransactionHasNullNotZeroForPhasesThatDidNotHappen() throws {
        let json = try object(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        let reused = try transactions(json)[1]
        XCTAssertEqual(reused["reusedConnection"] as? Bool, true)
        let phases = try XCTUnwrap(reused["phasesMs"] as? [String: Any])
        let stamps = try XCTUnwrap(reused["timestamps"] as? [String: Any])
        let offsets = try XCTUnwrap(reused["offsetsMs"] as? [String: Any])
        for name in ["dns", "connect", "tls"] {
            XCTAssertTrue(phases[name] is NSNull, "phasesMs.\(name) is \(String(describing: phases[name]))")
        }
        for name in ["domainLookupStart", "domainLookupEnd", "connectStart", "connectEnd", "secureConnectionStart",
                     "secureConnectionEnd", "responseStart", "responseEnd"] {
            XCTAssertTrue(stamps[name] is NSNull, "timestamps.\(name) is \(String(describing: stamps[name]))")
            XCTAssertTrue(offsets[name] is NSNull, "offsetsMs.\(name) is \(String(describing: offsets[name]))")
        }
        // The phases that happened are numbers, and the failure is recorded.
        XCTAssertEqual(phases["queue"] as? Double, 0.012)
        XCTAssertEqual(phases["send"] as? Double, 1900)
        XCTAssertTrue(phases["wait"] is NSNull)
        XCTAssertTrue(reused["statusCode"] is NSNull)
        let error = try XCTUnwrap(reused["error"] as? [String: Any])
        XCTAssertEqual(error["class"] as? String, "timeout.idle")
        XCTAssertEqual(error["curlCode"] as? Int, 28)
    }

    func testNewConnectionHasEveryPhaseInMillisecondsAndMicrosecondTimestamps() throws {
        let task = Fixtures.redirectTask()
        let json = try object(Fixtures.report(tasks: [task]))
        let first = try transactions(json)[0]
        let phases = try XCTUnwrap(first["phasesMs"] as? [String: Any])
        XCTAssertEqual(phases["dns"] as? Double, 1.2)
        XCTAssertEqual(phases["connect"] as? Double, 0.31)
        XCTAssertEqual(phases["tls"] as? Double, 4.5)
        XCTAssertEqual(phases["wait"] as? Double, 12.345)
        let stamps = try XCTUnwrap(first["timestamps"] as? [String: Any])
        XCTAssertEqual(stamps["fetchStart"] as? String, "2025-07-31T22:13:20.123456Z")
        XCTAssertEqual(stamps["domainLookupStart"] as? String, "2025-07-31T22:13:20.123496Z")
        let offsets = try XCTUnwrap(first["offsetsMs"] as? [String: Any])
        XCTAssertEqual(offsets["fetchStart"] as? Double, 0)
        XCTAssertEqual(offsets["domainLookupStart"] as? Double, 0.04)
        let timers = try XCTUnwrap(first["curlTimersUs"] as? [String: Any])
        XCTAssertEqual(timers["nameLookup"] as? Int, 1_200)
        XCTAssertEqual(timers["appConnect"] as? Int, 1_200 + 310 + 4_500)
        // Offsets count from the task's start, so a later transaction has a later fetchStart offset.
        let third = try transactions(json)[2]
        let thirdOffsets = try XCTUnwrap(third["offsetsMs"] as? [String: Any])
        let expected = Double(task.transactions[2].timeline.fetchStart - task.startedAt) / 1000
        XCTAssertEqual(thirdOffsets["fetchStart"] as? Double, expected)
        XCTAssertNotNil(third["responseHeaders"] as? [[String: Any]])
        XCTAssertNil(first["responseHeaders"], "responseHeaders is left out when they were not kept")
        XCTAssertEqual(third["expectContinueWaitMs"] as? Double, 1000)
    }

    func testConfigurationIsRedactedAndUsesMicrosecondKeys() throws {
        let json = try object(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        let configuration = try XCTUnwrap(json["configuration"] as? [String: Any])
        let urls = try XCTUnwrap(configuration["urls"] as? [String])
        XCTAssertEqual(urls, ["https://localhost:8443/upload?token=[REDACTED]"])
        let options = try XCTUnwrap(configuration["options"] as? [String: Any])
        XCTAssertEqual(options["connectTimeoutUs"] as? Int, 5_000_000)
        XCTAssertEqual(options["idleTimeoutUs"] as? Int, 15_000_000)
        XCTAssertNil(options["totalTimeoutUs"])
        XCTAssertEqual(options["proxy"] as? String, "http://[REDACTED]@proxy.local:3128")
        let text = try JSONRenderer.render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        XCTAssertFalse(text.contains("Bearer abc"))
        XCTAssertFalse(text.contains("secret@"))
    }

    func testDecodeRejectsAnotherSchema() throws {
        var text = try JSONRenderer.render(Fixtures.report(tasks: []))
        text = text.replacingOccurrences(of: "wirelens.report/2", with: "wirelens.report/3")
        XCTAssertThrowsError(try JSONRenderer.decode(Data(text.utf8)))
        XCTAssertThrowsError(try JSONRenderer.decode(Data("{}".utf8)))
    }

    func testCompactUploadReportKeepsItsUploadSectionBeforeTheTasks() throws {
        let report = Fixtures.uploadReport(tasks: Fixtures.manyTasks())
        let compact = try JSONRenderer.renderBytes(report, compactAbove: 5)
        XCTAssertEqual(try JSONRenderer.decode(Data(compact)), report)
        let text = String(decoding: compact, as: UTF8.self)
        let upload = try XCTUnwrap(text.range(of: "\"upload\":"))
        let tasks = try XCTUnwrap(text.range(of: "\"tasks\":[", options: .backwards))
        XCTAssertLessThan(upload.lowerBound, tasks.lowerBound)
        XCTAssertNil(try object(Fixtures.report(tasks: []))["upload"], "probe reports have no upload key")
    }

    /// The document `JSONRenderer.Stream` writes task by task, in pieces.
    private func streamed(_ report: Report, chunkSize: Int) throws -> (bytes: [UInt8], pieces: Int) {
        var bytes: [UInt8] = []
        var pieces = 0
        let emit = { (piece: [UInt8]) in
            bytes.append(contentsOf: piece)
            pieces += 1
        }
        var stream = try JSONRenderer.Stream(head: report, chunkSize: chunkSize)
        for task in report.tasks { try stream.add(task, emit: emit) }
        try stream.finish(report, emit: emit)
        return (bytes, pieces)
    }

    func testStreamedDocumentHoldsWhatTheCodableOneHolds() throws {
        for report in [Fixtures.report(tasks: Fixtures.manyTasks()),
                       Fixtures.report(tasks: Fixtures.manyTasks() + [Fixtures.redirectTask(), Fixtures.dnsFailureTask()],
                                       interrupted: true),
                       Fixtures.report(tasks: []), Fixtures.uploadReport(tasks: Fixtures.manyTasks())] {
            let (bytes, pieces) = try streamed(report, chunkSize: 512)
            // Foundation's parser and encoder, not Wirelens', are the oracle for the content.
            let codable = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? NSDictionary
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
            XCTAssertNotNil(parsed)
            XCTAssertEqual(parsed, codable)
            XCTAssertEqual(try JSONRenderer.decode(Data(bytes)), report)
            XCTAssertEqual(bytes.last, UInt8(ascii: "\n"))
            XCTAssertEqual(bytes.filter { $0 == UInt8(ascii: "\n") }.count, 1, "compact: one line")
            if report.tasks.count > 4 { XCTAssertGreaterThan(pieces, 2, "written in pieces, not whole") }
            // The tasks come right after the configuration, before what is known only at the end.
            let text = String(decoding: bytes, as: UTF8.self)
            let configuration = try XCTUnwrap(text.range(of: "\"configuration\":"))
            let tasks = try XCTUnwrap(text.range(of: "\"tasks\":["))
            let summary = try XCTUnwrap(text.range(of: "\"summary\":", options: .backwards))
            XCTAssertLessThan(configuration.lowerBound, tasks.lowerBound)
            XCTAssertLessThan(tasks.lowerBound, summary.lowerBound)
        }
    }

    /// An indented document of many tasks is handed over in pieces, as a compact one is, and still holds what the
    /// Codable document holds, one value per line, the tasks last.
    func testIndentedDocumentIsWrittenInPiecesWithTheTasksLast() throws {
        for report in [Fixtures.report(tasks: Fixtures.manyTasks() + [Fixtures.redirectTask(), Fixtures.dnsFailureTask()],
                                       interrupted: true),
                       Fixtures.report(tasks: []), Fixtures.uploadReport(tasks: Fixtures.manyTasks())] {
            var bytes: [UInt8] = []
            var pieces = 0
            try JSONRenderer.render(report, chunkSize: 512) { piece in
                bytes.append(contentsOf: piece)
                pieces += 1
            }
            // Foundation's parser and encoder, not Wirelens', are the oracle for the content.
            let codable = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? NSDictionary
            let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary
            XCTAssertNotNil(parsed)
            XCTAssertEqual(parsed, codable)
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("{\n  \"schema\": \"wirelens.report/2\",\n"), "indented by two spaces")
            XCTAssertTrue(text.hasSuffix("\n}\n"))
            if report.tasks.count > 4 { XCTAssertGreaterThan(pieces, 2, "written in pieces, not whole") }
            let summary = try XCTUnwrap(text.range(of: "\n  \"summary\": {"))
            let tasks = try XCTUnwrap(text.range(of: "\n  \"tasks\": ["))
            XCTAssertLessThan(summary.lowerBound, tasks.lowerBound)
        }
    }
}
