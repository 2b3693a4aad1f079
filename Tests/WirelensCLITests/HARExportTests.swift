import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// `wirelens probe --format har` on real runs against nginx: the HAR 1.2 rules hold for every entry.
final class HARExportTests: XCTestCase {
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wirelens").path
    }

    /// Runs the probe with `--format har` and returns the decoded `log` object.
    private func har(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString).har").path
        defer { unlink(path) }
        let outcome = try ProcessRunner.run(binary, ["probe", "--format", "har", "--report", path, "-q"] + arguments,
                                            timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let log = try XCTUnwrap((json as? [String: Any])?["log"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(log["version"] as? String, "1.2", file: file, line: line)
        XCTAssertEqual((log["creator"] as? [String: Any])?["name"] as? String, "wirelens", file: file, line: line)
        return log
    }

    private func entries(_ log: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap(log["entries"] as? [[String: Any]])
    }

    /// The spec's rules for one entry: required fields, -1 only where allowed, time = sum of the non-negative
    /// timings except ssl, ssl inside connect.
    private func assertValidEntry(_ entry: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
            XCTAssertNotNil(entry[key], "entry lacks \(key)", file: file, line: line)
        }
        let started = try XCTUnwrap(entry["startedDateTime"] as? String, file: file, line: line)
        XCTAssertNotNil(WallClock.parseISO8601(started), started, file: file, line: line)
        let request = try XCTUnwrap(entry["request"] as? [String: Any], file: file, line: line)
        for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"] {
            XCTAssertNotNil(request[key], "request lacks \(key)", file: file, line: line)
        }
        let response = try XCTUnwrap(entry["response"] as? [String: Any], file: file, line: line)
        for key in ["status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
                    "headersSize", "bodySize"] {
            XCTAssertNotNil(response[key], "response lacks \(key)", file: file, line: line)
        }
        let content = try XCTUnwrap(response["content"] as? [String: Any], file: file, line: line)
        XCTAssertNotNil(content["size"], file: file, line: line)
        XCTAssertNotNil(content["mimeType"], file: file, line: line)
        let timings = try XCTUnwrap(entry["timings"] as? [String: Double], file: file, line: line)
        for key in ["send", "wait", "receive"] {
            let value = try XCTUnwrap(timings[key], "timings lack \(key)", file: file, line: line)
            XCTAssertGreaterThanOrEqual(value, 0, key, file: file, line: line)
        }
        for key in ["blocked", "dns", "connect", "ssl"] {
            let value = try XCTUnwrap(timings[key], "timings lack \(key)", file: file, line: line)
            XCTAssertTrue(value == -1 || value >= 0, "\(key) = \(value)", file: file, line: line)
        }
        let sum = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { timings[$0] }
            .filter { $0 >= 0 }.reduce(0, +)
        let time = try XCTUnwrap(entry["time"] as? Double, file: file, line: line)
        XCTAssertEqual(time, sum, accuracy: 0.0015, "time is not the sum of the timings: \(timings)", file: file, line: line)
        if let ssl = timings["ssl"], ssl >= 0 {
            XCTAssertGreaterThanOrEqual(timings["connect"] ?? -1, ssl, "ssl must lie inside connect", file: file, line: line)
        }
    }

    func testReusedConnectionHasNoDNSOrConnect() throws {
        let servers = try TestServers.get()
        let log = try har([servers.http("/small.txt?x=1&y=two"), "--repeat", "2"])
        let list = try entries(log)
        XCTAssertEqual(list.count, 2)
        for entry in list { try assertValidEntry(entry) }
        let first = try XCTUnwrap(list[0]["timings"] as? [String: Double])
        let second = try XCTUnwrap(list[1]["timings"] as? [String: Double])
        XCTAssertGreaterThanOrEqual(first["connect"] ?? -1, 0, "the first request opens a connection")
        XCTAssertEqual(first["ssl"], -1, "no TLS over http://")
        XCTAssertEqual(second["connect"], -1, "the second request reuses the connection")
        XCTAssertEqual(second["dns"], -1)
        XCTAssertEqual(list[0]["serverIPAddress"] as? String, "127.0.0.1")
        XCTAssertEqual(list[0]["connection"] as? String, list[1]["connection"] as? String)
        let request = try XCTUnwrap(list[0]["request"] as? [String: Any])
        let query = try XCTUnwrap(request["queryString"] as? [[String: String]])
        XCTAssertEqual(query, [["name": "x", "value": "1"], ["name": "y", "value": "two"]])
        let response = try XCTUnwrap(list[0]["response"] as? [String: Any])
        XCTAssertEqual(response["status"] as? Int, 200)
        XCTAssertEqual(response["httpVersion"] as? String, "HTTP/1.1")
        XCTAssertEqual(response["bodySize"] as? Int, 14)
    }

    func testTLSRedirectsHeadersAndRedaction() throws {
        let servers = try TestServers.get()
        let log = try har([servers.https("/hops/3"), "--cacert", servers.certPath, "--http1.1", "--include-headers",
                           "-H", "X-Api-Token: hunter2", "--no-reuse"])
        let list = try entries(log)
        XCTAssertEqual(list.count, 3, "two redirect hops and the final response")
        for entry in list { try assertValidEntry(entry) }
        let timings = try XCTUnwrap(list[0]["timings"] as? [String: Double])
        XCTAssertGreaterThan(timings["ssl"] ?? -1, 0, "a TLS handshake happened")
        let response = try XCTUnwrap(list[0]["response"] as? [String: Any])
        XCTAssertEqual(response["status"] as? Int, 302)
        XCTAssertTrue((response["redirectURL"] as? String ?? "").hasSuffix("/hops/2"), "\(response)")
        let headers = try XCTUnwrap(response["headers"] as? [[String: String]])
        XCTAssertTrue(headers.contains { $0["name"]?.lowercased() == "location" }, "\(headers)")
        let request = try XCTUnwrap(list[0]["request"] as? [String: Any])
        let sent = try XCTUnwrap(request["headers"] as? [[String: String]])
        XCTAssertTrue(sent.contains { $0["name"] == "X-Api-Token" && $0["value"] == Redactor.mask }, "\(sent)")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: log), as: UTF8.self)
        XCTAssertFalse(text.contains("hunter2"), "a secret reached the HAR")
    }

    func testConcurrentTasksAreSortedByStartTime() throws {
        let servers = try TestServers.get()
        let log = try har([servers.http("/small.txt"), servers.http("/hops/2"), "--repeat", "4", "--concurrency", "4"])
        let list = try entries(log)
        XCTAssertEqual(list.count, 12, "4 × (1 + 2 transactions)")
        for entry in list { try assertValidEntry(entry) }
        let starts = list.compactMap { ($0["startedDateTime"] as? String).flatMap(WallClock.parseISO8601) }
        XCTAssertEqual(starts.count, 12)
        XCTAssertEqual(starts, starts.sorted())
    }

    func testUploadSizes() throws {
        let servers = try TestServers.get()
        let log = try har([servers.http("/upload/har-\(UUID().uuidString).bin"), "--upload-size", "256KiB"])
        let list = try entries(log)
        XCTAssertEqual(list.count, 1)
        try assertValidEntry(list[0])
        let request = try XCTUnwrap(list[0]["request"] as? [String: Any])
        XCTAssertEqual(request["method"] as? String, "PUT")
        XCTAssertEqual(request["bodySize"] as? Int, 262_144)
        let timings = try XCTUnwrap(list[0]["timings"] as? [String: Double])
        XCTAssertGreaterThan(timings["send"] ?? 0, 0, "the upload is in send")
    }
}
