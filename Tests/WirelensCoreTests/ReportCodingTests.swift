import XCTest
import WirelensCore
import WirelensCurl
import WirelensProbe
import WirelensTestSupport

final class ReportCodingTests: XCTestCase {
    private let t = Fixture.epoch

    /// A run of two tasks: the first follows a redirect over a reused connection, the second fails to resolve.
    private func sampleReport(_ detail: ReportDetail = .full) -> Report {
        var first = Fixture.transaction(kind: .initial, url: "https://example.com/old", fetchStart: t + 250,
                                        requestEnd: t + 60_000, responseStart: t + 90_000, responseEnd: t + 95_000,
                                        reused: false, connectionId: 0, localPort: 50_000, status: 301)
        first.timeline.domainLookupStart = t + 250
        first.timeline.domainLookupEnd = t + 20_250
        first.timeline.connectStart = t + 20_250
        first.timeline.connectEnd = t + 40_000
        first.timeline.secureConnectionStart = t + 40_000
        first.timeline.secureConnectionEnd = t + 50_000
        first.timeline.requestStart = t + 50_010
        first.phases = Phases(queue: 0, dns: 20_000, connect: 19_750, tls: 10_000, send: 9_990, wait: 30_000,
                              receive: 5_000, total: 94_750)
        first.tlsVersion = "TLSv1.3"
        first.tlsCipher = "TLS_AES_128_GCM_SHA256"
        first.alpn = "http/1.1"
        first.requestHeaderBytes = 120
        first.responseHeaderBytes = 310
        first.curlTimers = CurlTimers(nameLookup: 20_000, connect: 39_750, appConnect: 49_750, preTransfer: 49_760,
                                      startTransfer: 89_750, total: 94_750)
        first.responseHeaders = [HeaderField(name: "Location", value: "https://example.com/new"),
                                 HeaderField(name: "Set-Cookie", value: Redactor.mask)]

        var second = Fixture.transaction(kind: .redirect, url: "https://example.com/new", method: "PUT",
                                         fetchStart: t + 150_000, requestStart: t + 150_040,
                                         requestEnd: t + 1_150_040, responseStart: t + 1_200_000,
                                         responseEnd: t + 12_345_678, reused: true, connectionId: 0,
                                         localPort: 50_000, status: 200, requestBodyBytes: 5_000_000,
                                         responseBodyBytes: 42)
        second.expectContinueWait = 1_000_123
        second.proxyConnection = true

        var failed = Fixture.transaction(url: "https://nowhere.invalid/", fetchStart: t + 20_000_000, reused: false,
                                         connectionId: nil, localPort: nil, status: nil,
                                         error: TransferError(errorClass: .dns, curlCode: 6,
                                                              message: "Could not resolve host: nowhere.invalid"))
        failed.timeline = Timeline(fetchStart: t + 20_000_000)
        failed.timeline.domainLookupStart = t + 20_000_000
        failed.phases = Phases(queue: 0, total: 3_000)

        let tasks = [
            Fixture.task(index: 0, url: "https://example.com/old", startedAt: t, endedAt: t + 12_345_678, status: 200,
                         transactions: [first, second]),
            Fixture.task(index: 1, url: "https://nowhere.invalid/", startedAt: t + 20_000_000,
                         endedAt: t + 20_003_000, status: nil,
                         error: TransferError(errorClass: .dns, curlCode: 6, message: "Could not resolve host"),
                         transactions: [failed]),
        ]
        var options = ProbeOptions()
        options.concurrency = 4
        options.maxHostConnections = 2
        options.idleTimeout = 15_000_000
        options.retry = RetryPolicy(maxRetries: 3)
        options.headers = [HeaderField(name: "X-Api-Key", value: "k-123"), HeaderField(name: "Accept", value: "*/*")]
        let configuration = RunConfiguration(urls: ["https://example.com/old?access_token=abc", "https://nowhere.invalid/"],
                                             method: "GET", body: .generated(size: 5_000_000), repeatCount: 1,
                                             options: options)
        let libcurl = Fixture.libcurl("7.88.1")
        var report = Report(libcurl: libcurl, command: "wirelens probe https://example.com/old", startedAt: t - 1_000,
                            endedAt: t + 20_004_000, interrupted: false, configuration: configuration,
                            caveats: libcurl.caveats(options: options, hasUploads: true), tasks: tasks)
        report.detail = detail
        return report
    }

    private func encode(_ report: Report) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(report)
    }

    private func json(_ report: Report) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: try encode(report)) as? [String: Any])
    }

    private func transaction(_ object: [String: Any], task: Int, index: Int) throws -> [String: Any] {
        let tasks = try XCTUnwrap(object["tasks"] as? [[String: Any]])
        let transactions = try XCTUnwrap(tasks[task]["transactions"] as? [[String: Any]])
        return transactions[index]
    }

    func testRoundTrip() throws {
        let report = sampleReport()
        let decoded = try JSONDecoder().decode(Report.self, from: try encode(report))
        XCTAssertEqual(decoded.tasks, report.tasks)
        XCTAssertEqual(decoded.summary, report.summary)
        XCTAssertEqual(decoded.configuration, report.configuration)
        XCTAssertEqual(decoded, report)
        // And the second encoding is byte for byte the first.
        XCTAssertEqual(try encode(decoded), try encode(report))
    }

    func testTopLevelFields() throws {
        let object = try json(sampleReport())
        XCTAssertEqual(object["schema"] as? String, "wirelens.report/2")
        XCTAssertEqual(object["detail"] as? String, "full")
        XCTAssertEqual(object["startedAt"] as? String, "2023-11-14T22:13:19.999000Z")
        XCTAssertEqual(object["endedAt"] as? String, "2023-11-14T22:13:40.004000Z")
        let tool = try XCTUnwrap(object["tool"] as? [String: Any])
        XCTAssertEqual(tool["name"] as? String, "wirelens")
        let configuration = try XCTUnwrap(object["configuration"] as? [String: Any])
        XCTAssertEqual(configuration["urls"] as? [String],
                       ["https://example.com/old?access_token=\(Redactor.mask)", "https://nowhere.invalid/"])
        let options = try XCTUnwrap(configuration["options"] as? [String: Any])
        XCTAssertEqual(options["idleTimeoutUs"] as? Int, 15_000_000)
        let text = String(decoding: try encode(sampleReport()), as: UTF8.self)
        XCTAssertFalse(text.contains("k-123"), "header secrets never reach the report")
        XCTAssertFalse(text.contains("access_token=abc"))
    }

    func testReusedTransactionEncodesNullForSetupPhases() throws {
        let tx = try transaction(try json(sampleReport()), task: 0, index: 1)
        XCTAssertEqual(tx["reusedConnection"] as? Bool, true)
        let phases = try XCTUnwrap(tx["phasesMs"] as? [String: Any])
        for name in ["dns", "connect", "tls"] {
            XCTAssertNotNil(phases[name], "\(name) key is present")
            XCTAssertTrue(phases[name] is NSNull, "\(name) is null, not 0: \(String(describing: phases[name]))")
        }
        XCTAssertEqual(phases["queue"] as? Double, 0)
        XCTAssertEqual(phases["send"] as? Double, 1_000)
        XCTAssertEqual(try XCTUnwrap(phases["total"] as? Double), 12_195.678, accuracy: 1e-9)
        let stamps = try XCTUnwrap(tx["timestamps"] as? [String: Any])
        XCTAssertTrue(stamps["domainLookupStart"] is NSNull)
        XCTAssertTrue(stamps["connectStart"] is NSNull)
        XCTAssertEqual(tx["expectContinueWaitMs"] as? Double, 1_000.123)
    }

    func testNewConnectionEncodesSetupPhasesInMilliseconds() throws {
        let phases = try XCTUnwrap(try transaction(try json(sampleReport()), task: 0, index: 0)["phasesMs"]
            as? [String: Any])
        XCTAssertEqual(phases["dns"] as? Double, 20)
        XCTAssertEqual(try XCTUnwrap(phases["connect"] as? Double), 19.75, accuracy: 1e-9)
        XCTAssertEqual(phases["tls"] as? Double, 10)
    }

    func testOffsetsAreRelativeToTheTaskStart() throws {
        let object = try json(sampleReport())
        let first = try XCTUnwrap(try transaction(object, task: 0, index: 0)["offsetsMs"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(first["fetchStart"] as? Double), 0.25, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(first["domainLookupEnd"] as? Double), 20.25, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(first["responseEnd"] as? Double), 95, accuracy: 1e-9)
        // The redirect hop's offsets count from the task's start, not from its own fetchStart.
        let second = try XCTUnwrap(try transaction(object, task: 0, index: 1)["offsetsMs"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(second["fetchStart"] as? Double), 150, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(second["responseEnd"] as? Double), 12_345.678, accuracy: 1e-9)
        XCTAssertTrue(second["connectStart"] is NSNull)
        // The second task has its own start.
        let failed = try XCTUnwrap(try transaction(object, task: 1, index: 0)["offsetsMs"] as? [String: Any])
        XCTAssertEqual(failed["fetchStart"] as? Double, 0)
        XCTAssertEqual(failed["domainLookupStart"] as? Double, 0)
        XCTAssertTrue(failed["domainLookupEnd"] is NSNull)
    }

    func testTimestampsAreRFC3339WithMicroseconds() throws {
        let object = try json(sampleReport())
        let stamps = try XCTUnwrap(try transaction(object, task: 0, index: 1)["timestamps"] as? [String: Any])
        XCTAssertEqual(stamps["responseEnd"] as? String, WallClock.iso8601(micros: t + 12_345_678))
        XCTAssertEqual(stamps["responseEnd"] as? String, "2023-11-14T22:13:32.345678Z")
        let tasks = try XCTUnwrap(object["tasks"] as? [[String: Any]])
        XCTAssertEqual(try XCTUnwrap(tasks[0]["durationMs"] as? Double), 12_345.678, accuracy: 1e-9)
        let error = try XCTUnwrap(tasks[1]["error"] as? [String: Any])
        XCTAssertEqual(error["class"] as? String, "dns")
        XCTAssertEqual(error["curlCode"] as? Int, 6)
        XCTAssertTrue(tasks[1]["statusCode"] is NSNull)
    }

    func testWrongSchemaFailsToDecode() throws {
        var object = try json(sampleReport())
        object["schema"] = "wirelens.report/3"
        let data = try JSONSerialization.data(withJSONObject: object)
        XCTAssertThrowsError(try JSONDecoder().decode(Report.self, from: data)) { error in
            guard case DecodingError.dataCorrupted = error else {
                return XCTFail("expected dataCorrupted, got \(error)")
            }
        }
        object["schema"] = nil
        XCTAssertThrowsError(try JSONDecoder().decode(Report.self,
                                                      from: try JSONSerialization.data(withJSONObject: object)))
    }

    /// `standard` writes every member of `full` but `offsetsMs`, `curlTimersUs` and `tcp.samples`, with the same values.
    func testStandardLeavesOutTheDebugMembersOnly() throws {
        let lean = try json(sampleReport(.standard))
        let whole = try json(sampleReport(.full))
        XCTAssertEqual(lean["detail"] as? String, "standard")
        XCTAssertEqual(Set(lean.keys), Set(whole.keys))
        for (t, task) in try XCTUnwrap(whole["tasks"] as? [[String: Any]]).enumerated() {
            for i in try XCTUnwrap(task["transactions"] as? [[String: Any]]).indices {
                var w = try transaction(whole, task: t, index: i)
                let l = try transaction(lean, task: t, index: i)
                XCTAssertNotNil(w.removeValue(forKey: "offsetsMs"))
                XCTAssertNotNil(w.removeValue(forKey: "curlTimersUs"))
                if var tcp = w["tcp"] as? [String: Any] {
                    tcp["samples"] = nil
                    w["tcp"] = tcp
                }
                XCTAssertEqual(try JSONSerialization.data(withJSONObject: l, options: .sortedKeys),
                               try JSONSerialization.data(withJSONObject: w, options: .sortedKeys), "task \(t) #\(i)")
            }
        }
    }

    /// A `wirelens.report/1` document (the `full` members, no `detail`) reads as a current report at `full`.
    func testVersionOneReadsAsFull() throws {
        var object = try json(sampleReport(.full))
        object["schema"] = "wirelens.report/1"
        object["detail"] = nil
        let decoded = try JSONDecoder().decode(Report.self, from: try JSONSerialization.data(withJSONObject: object))
        XCTAssertEqual(decoded.schema, "wirelens.report/2")
        XCTAssertEqual(decoded.detail, .full)
        XCTAssertEqual(decoded, sampleReport(.full))
        // A current document must say its detail.
        object["schema"] = "wirelens.report/2"
        XCTAssertThrowsError(try JSONDecoder().decode(Report.self, from: try JSONSerialization.data(withJSONObject: object)))
    }

    func testBadTimestampFailsToDecode() throws {
        var object = try json(sampleReport())
        object["startedAt"] = "yesterday"
        let data = try JSONSerialization.data(withJSONObject: object)
        XCTAssertThrowsError(try JSONDecoder().decode(Report.self, from: data))
    }

    func testSummaryIsBuiltFromTheTasks() {
        let report = sampleReport()
        XCTAssertEqual(report.summary.tasks, 2)
        XCTAssertEqual(report.summary.transactions, 3)
        XCTAssertEqual(report.summary.connections.opened, 1)
        XCTAssertEqual(report.summary.connections.reused, 1)
        XCTAssertEqual(report.summary.errors, ["dns": 1])
    }
}
