import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// Runs the built `wirelens` executable for the CLI tests and checks its one-line errors.
enum CLIHarness {
    /// The built executable, next to the test bundle.
    static var binary: String { WirelensCLI.path }

    /// Runs `wirelens` with `arguments`, killed after `timeout` seconds.
    static func run(_ arguments: [String], timeout: TimeInterval = 60,
                    afterStart: ((pid_t) -> Void)? = nil) throws -> ProcessRunner.Outcome {
        try WirelensCLI.run(arguments, timeout: timeout, afterStart: afterStart)
    }

    /// A fresh path in the temporary directory ending in `name`.
    static func temporaryPath(_ name: String) -> String { WirelensCLI.temporaryPath(name) }

    /// Asserts the exit code and that stderr is exactly one line naming `mention`.
    static func assertFails(_ arguments: [String], code: ExitStatus, mention: String,
                            file: StaticString = #filePath, line: UInt = #line) throws {
        try WirelensCLI.assertFails(arguments, code: code, mention: mention, file: file, line: line)
    }

    /// Asserts that the JSON document at `path` validates against `docs/<schema>` (Python's jsonschema).
    static func assertValid(_ path: String, schema: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let schemaPath = TestServers.repositoryRoot.appendingPathComponent("docs/\(schema)").path
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys, jsonschema
            jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
            """, path, schemaPath])
        XCTAssertEqual(check.status, 0, check.stderr, file: file, line: line)
    }

    /// The first transaction of the first task of the JSON report at `path`, and that task.
    static func firstTransaction(ofReport path: String) throws -> (transaction: [String: Any], task: [String: Any]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let task = try XCTUnwrap((json["tasks"] as? [[String: Any]])?.first)
        let transaction = try XCTUnwrap((task["transactions"] as? [[String: Any]])?.first)
        return (transaction, task)
    }

    /// A transaction's diagnosis: its verdict and evidence.
    static func diagnosis(_ tx: [String: Any]) throws -> (verdict: String, evidence: [String: Any]) {
        let d = try XCTUnwrap(tx["diagnosis"] as? [String: Any], "no diagnosis in \(tx)")
        return (try XCTUnwrap(d["verdict"] as? String), try XCTUnwrap(d["evidence"] as? [String: Any]))
    }

    /// Runs `wirelens probe ARGUMENTS` in the path's client namespace (or `namespace`, another of its namespaces)
    /// with a JSON report; the report's first transaction.
    static func probe(in path: NetworkPath, namespace: String? = nil, _ arguments: [String], timeout: TimeInterval = 120,
                      file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let report = temporaryPath("path.json")
        defer { unlink(report) }
        let outcome = try path.run(in: namespace ?? path.clientNamespace, WirelensCLI.path,
                                   ["probe"] + arguments + ["--format", "json", "--report", report, "-q"], timeout: timeout)
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        return try firstTransaction(ofReport: report).transaction
    }
}
