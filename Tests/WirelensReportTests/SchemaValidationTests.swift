import Foundation
import WirelensCompare
import WirelensCore
import WirelensReport
import XCTest

/// Validates rendered reports against docs/report.schema.json with Python's `jsonschema` package.
final class SchemaValidationTests: XCTestCase {
    /// Exit status of the validator script when the document does not match the schema.
    private static let invalidDocument: Int32 = 3
    /// Exit status when `jsonschema` is not installed.
    private static let missingPackage: Int32 = 77

    private static let script = """
    import json, sys
    try:
        import jsonschema
    except ImportError:
        sys.exit(77)
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    with open(sys.argv[2]) as f:
        document = json.load(f)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        print("/".join(map(str, error.absolute_path)) + ": " + error.message)
    sys.exit(3 if errors else 0)
    """

    /// docs/report.schema.json (or another schema of docs/), found from this file's place in the package.
    private static func schemaURL(_ name: String = "report.schema.json") -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/\(name)")
    }

    /// Runs the validator on `json`; returns its exit status and output.
    private func validate(_ json: String, schema: String = "report.schema.json", file: StaticString = #filePath,
                          line: UInt = #line) throws -> (Int32, String) {
        let schemaURL = Self.schemaURL(schema)
        XCTAssertTrue(FileManager.default.fileExists(atPath: schemaURL.path), "no schema at \(schemaURL.path)")
        let document = FileManager.default.temporaryDirectory
            .appendingPathComponent("wirelens-report-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: document)
        defer { try? FileManager.default.removeItem(at: document) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, schemaURL.path, document.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == Self.missingPackage {
            throw XCTSkip("python3 has no jsonschema package")
        }
        return (process.terminationStatus, output)
    }

    private func assertValid(_ report: Report, file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, output) = try validate(try JSONRenderer.render(report))
        XCTAssertEqual(status, 0, "report does not match docs/report.schema.json:\n\(output)", file: file, line: line)
    }

    func testCompareDocumentMatchesItsSchema() throws {
        let doc = Fixtures.compareDocument()
        let json = String(decoding: try StreamingJSONEncoder(prettyPrinted: true).encode(doc), as: UTF8.self)
        let (status, output) = try validate(json, schema: "compare.schema.json")
        XCTAssertEqual(status, 0, "compare document does not match docs/compare.schema.json:\n\(output)")
        // A wrong document fails: the check can fail.
        let (bad, _) = try validate(json.replacingOccurrences(of: "\"bandwidth-bound\"", with: "\"fast\""),
                                    schema: "compare.schema.json")
        XCTAssertEqual(bad, Self.invalidDocument)
        XCTAssertTrue(json.contains("\"bandwidth-bound\""))
        // Each embedded run is a report of its own schema.
        try assertValid(doc.runs[0].report)
        let decoded = try JSONDecoder().decode(CompareDocument.self, from: Data(json.utf8))
        XCTAssertEqual(decoded.results, doc.results)
    }

    func testRenderedReportsMatchTheSchema() throws {
        // Null and non-null phases, reused and new connections, a failure, response headers, options with
        // and without the optional keys.
        let redirect = Fixtures.report(tasks: [Fixtures.redirectTask()])
        XCTAssertNotNil(redirect.tasks[0].transactions[2].responseHeaders)
        XCTAssertNotNil(redirect.tasks[0].transactions[1].error)
        try assertValid(redirect)
        var capped = Fixtures.redirectTask()
        capped.transactions[2].retryAfter = 99_999_999_000_000
        try assertValid(Fixtures.report(tasks: [capped]))
        try assertValid(Fixtures.report(tasks: [Fixtures.dnsFailureTask()]))
        try assertValid(Fixtures.report(tasks: [Fixtures.redirectTask(multipath: Fixtures.multipath)]))
        try assertValid(Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true))
        try assertValid(Fixtures.report(tasks: []))
        try assertValid(Fixtures.uploadReport(tasks: Fixtures.manyTasks()))
        var failed = Fixtures.uploadReport(tasks: [])
        failed.upload?.failure = "segment 1 failed 4 times"
        failed.upload?.serverSHA256 = nil
        failed.upload?.fileSHA256 = nil
        failed.upload?.effectiveBytesPerSecond = nil
        failed.upload?.verified = false
        try assertValid(failed)
        // At `standard`, without the debug members.
        for report in [redirect, Fixtures.report(tasks: Fixtures.manyTasks()), Fixtures.uploadReport(tasks: Fixtures.manyTasks())] {
            var lean = report
            lean.detail = .standard
            try assertValid(lean)
        }
    }

    func testMinimalConfigurationMatchesTheSchema() throws {
        var report = Fixtures.report(tasks: [Fixtures.redirectTask()])
        report.configuration = RunConfiguration(urls: ["http://127.0.0.1:8080/"], method: "GET", body: .none,
                                                repeatCount: 1, options: ProbeOptions())
        report.libcurl.sslBackend = nil
        report.libcurl.nghttp2 = nil
        try assertValid(report)
    }

    func testEveryKeyTheEncoderWritesIsDocumented() throws {
        let docURL = Self.schemaURL().deletingLastPathComponent().appendingPathComponent("report-schema.md")
        let doc = try String(contentsOf: docURL, encoding: .utf8)
        var keys = Set<String>()
        // The keys of these objects are data (status codes, error classes, protocol names), not field names.
        let maps: Set<String> = ["statusCodes", "errors", "protocols"]
        func collect(_ value: Any, isMap: Bool = false) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    if !isMap { keys.insert(key) }
                    collect(child, isMap: maps.contains(key))
                }
            } else if let array = value as? [Any] {
                array.forEach { collect($0) }
            }
        }
        var capped = Fixtures.redirectTask()
        capped.transactions[2].retryAfter = 99_999_999_000_000
        for report in [Fixtures.report(tasks: [capped]), Fixtures.report(tasks: Fixtures.manyTasks()),
                       Fixtures.report(tasks: [Fixtures.redirectTask(multipath: Fixtures.multipath)]),
                       Fixtures.uploadReport(tasks: Fixtures.manyTasks())] {
            collect(try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(report).utf8)))
        }
        XCTAssertGreaterThan(keys.count, 100)
        for key in keys.sorted() {
            XCTAssertTrue(doc.contains("`\(key)`"), "docs/report-schema.md does not mention `\(key)`")
        }
    }

    /// Renders the redirect report, changes it with `edit` and returns the validator's verdict.
    private func validateEdited(_ edit: (inout [String: Any]) -> Void) throws -> (Int32, String) {
        let text = try JSONRenderer.render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        edit(&json)
        let edited = try JSONSerialization.data(withJSONObject: json)
        return try validate(String(decoding: edited, as: UTF8.self))
    }

    /// Sets `value` at `key` of the first task's transaction `index`, in its object `member` (or itself when nil).
    private static func setTransaction(_ json: inout [String: Any], _ index: Int, _ member: String?, _ key: String,
                                       _ value: Any?) {
        var tasks = json["tasks"] as! [[String: Any]]
        var transactions = tasks[0]["transactions"] as! [[String: Any]]
        if let member {
            var object = transactions[index][member] as! [String: Any]
            object[key] = value
            transactions[index][member] = object
        } else {
            transactions[index][key] = value
        }
        tasks[0]["transactions"] = transactions
        json["tasks"] = tasks
    }

    func testAPhaseWrittenAsTextFailsValidation() throws {
        let (status, output) = try validateEdited { Self.setTransaction(&$0, 0, "phasesMs", "dns", "1.2") }
        XCTAssertEqual(status, Self.invalidDocument, output)
        XCTAssertTrue(output.contains("phasesMs/dns"), output)
    }

    func testOtherMistakesFailValidation() throws {
        let mistakes: [(String, (inout [String: Any]) -> Void)] = [
            ("missing total", { Self.setTransaction(&$0, 0, "phasesMs", "total", nil) }),
            ("timestamp without microseconds", {
                Self.setTransaction(&$0, 0, "timestamps", "fetchStart", "2025-07-31T22:13:20Z")
            }),
            ("null fetchStart", { Self.setTransaction(&$0, 0, "timestamps", "fetchStart", NSNull()) }),
            ("unknown error class", {
                Self.setTransaction(&$0, 1, nil, "error", ["class": "timeout", "message": "slow"])
            }),
            ("unknown kind", { Self.setTransaction(&$0, 0, nil, "kind", "followup") }),
            ("unknown transaction key", { Self.setTransaction(&$0, 0, nil, "dnsMs", 1.2) }),
            ("missing statusCode", { Self.setTransaction(&$0, 0, nil, "statusCode", nil) }),
            ("other schema", { $0["schema"] = "wirelens.report/3" }),
            ("the version before", { $0["schema"] = "wirelens.report/1" }),
            ("no detail", { $0["detail"] = nil }),
            ("unknown detail", { $0["detail"] = "some" }),
            ("full without offsets", { Self.setTransaction(&$0, 0, nil, "offsetsMs", nil) }),
            ("full without libcurl's timers", { Self.setTransaction(&$0, 1, nil, "curlTimersUs", nil) }),
            ("standard with offsets", { $0["detail"] = "standard" }),
        ]
        for (name, edit) in mistakes {
            let (status, output) = try validateEdited(edit)
            XCTAssertEqual(status, Self.invalidDocument, "\(name) passed validation: \(output)")
        }
    }
}
