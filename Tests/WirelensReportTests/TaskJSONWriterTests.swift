import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensCore
@testable import WirelensReport

final class TaskJSONWriterTests: XCTestCase {
    /// Tasks that reach every branch of the writer: redirects, TLS, failures with and without a curl code,
    /// response headers, escapes, uploads with speeds and Expect waits, retry waits, negative and odd durations.
    private func variedTasks() -> [TaskRecord] {
        var tasks = [Fixtures.redirectTask(), Fixtures.redirectTask(multipath: Fixtures.multipath),
                     Fixtures.dnsFailureTask()] + Fixtures.manyTasks()
        var odd = Fixtures.redirectTask()
        odd.index = 99
        odd.url = "http://127.0.0.1/q?a=\"quoted\"\\back\nline\u{01}é"
        odd.error = TransferError(errorClass: .http, message: "HTTP 503 \"busy\"")
        odd.statusCode = nil
        odd.transactions[0].responseHeaders = [HeaderField(name: "Server", value: "nginx"),
                                               HeaderField(name: "X-Odd", value: "tab\there")]
        odd.transactions[0].tlsVersion = "TLSv1.3"
        odd.transactions[0].tlsCipher = "TLS_AES_256_GCM_SHA384"
        odd.transactions[0].alpn = "h2"
        odd.transactions[0].requestBodyBytes = 10_485_760
        odd.transactions[0].responseBodyBytes = 7
        odd.transactions[0].responseBodyWireBytes = 3  // --compressed: the body as it came
        odd.transactions[0].expectContinueWait = 1_000_001
        odd.transactions[0].phases.send = 333_333
        odd.transactions[0].phases.wait = 1
        odd.transactions[0].timeline.requestEnd = odd.startedAt - 1_500  // before the task: a negative offset
        odd.transactions[0].error = TransferError(errorClass: .idleTimeout, curlCode: 28, message: "idle")
        odd.transactions[2].retryWait = 1_000_001
        odd.transactions[2].retryAfter = .max  // a Retry-After beyond any cap
        tasks.append(odd)
        return tasks
    }

    /// Each varied task's bytes read back, by Foundation's decoder, as the task written (`full`: every member).
    func testVariedTasksReadBackAsWritten() throws {
        for task in variedTasks() {
            var ours: [UInt8] = []
            TaskJSONWriter.append(task, detail: .full, to: &ours)
            XCTAssertEqual(try JSONDecoder().decode(TaskRecord.self, from: Data(ours)), task, "task \(task.index)")
        }
    }

    /// `standard` leaves out exactly `offsetsMs`, `curlTimersUs` and `tcp.samples`, and `full` writes the offsets
    /// as the timestamps less the task's start: both read back from the bytes by Foundation's parser.
    func testTheLevelsDifferByTheDebugMembersOnly() throws {
        var g = SplitMix64(seed: 30)
        let random = (0..<100).map { RandomReports.task(index: $0, &g) }
        XCTAssertTrue(random.contains { $0.transactions.contains { $0.tcp?.samples.isEmpty == false } })
        for task in variedTasks() + random {
            var standard: [UInt8] = []
            TaskJSONWriter.append(task, detail: .standard, to: &standard)
            var full: [UInt8] = []
            TaskJSONWriter.append(task, detail: .full, to: &full)
            let lean = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(standard)) as? [String: Any])
            let whole = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(full)) as? [String: Any])
            let leanTransactions = try XCTUnwrap(lean["transactions"] as? [[String: Any]])
            let wholeTransactions = try XCTUnwrap(whole["transactions"] as? [[String: Any]])
            XCTAssertEqual(leanTransactions.count, wholeTransactions.count)
            let started = try XCTUnwrap(WallClock.parseISO8601(try XCTUnwrap(whole["startedAt"] as? String)))
            for (l, w) in zip(leanTransactions, wholeTransactions) {
                XCTAssertEqual(Set(w.keys).subtracting(l.keys), ["offsetsMs", "curlTimersUs"])
                XCTAssertTrue(Set(l.keys).isSubset(of: w.keys))
                let stamps = try XCTUnwrap(w["timestamps"] as? [String: Any])
                let offsets = try XCTUnwrap(w["offsetsMs"] as? [String: Any])
                XCTAssertEqual(Set(stamps.keys), Set(offsets.keys))
                for (name, stamp) in stamps {
                    guard let text = stamp as? String else {
                        XCTAssertTrue(offsets[name] is NSNull, name)
                        continue
                    }
                    let micros = try XCTUnwrap(WallClock.parseISO8601(text)) - started
                    XCTAssertEqual(try XCTUnwrap(offsets[name] as? Double), Double(micros) / 1000, accuracy: 0.0005, name)
                }
                let leanTCP = l["tcp"] as? [String: Any]
                let wholeTCP = w["tcp"] as? [String: Any]
                XCTAssertNil(leanTCP?["samples"])
                if let wholeTCP, let leanTCP {
                    XCTAssertEqual(Set(wholeTCP.keys).subtracting(leanTCP.keys),
                                   (wholeTCP["samples"] as? [Any])?.isEmpty == false ? ["samples"] : [])
                }
                for key in l.keys where key != "tcp" {
                    XCTAssertEqual(try JSONSerialization.data(withJSONObject: ["v": l[key] ?? NSNull()], options: .sortedKeys),
                                   try JSONSerialization.data(withJSONObject: ["v": w[key] ?? NSNull()], options: .sortedKeys),
                                   key)
                }
            }
        }
    }

    /// Seeded random tasks (every optional present and absent, strings that need escaping, durations beyond the exact
    /// millisecond range, kernel facts and diagnoses) in a report at each detail level: the indented document is the
    /// compact one as Python's `json.dumps(indent=2)` indents it, byte for byte (fractional numbers
    /// keep their text).
    func testTheIndentedDocumentIsTheCompactOneIndented() throws {
        var g = SplitMix64(seed: 14)
        let tasks = (0..<400).map { RandomReports.task(index: $0, &g) }
        for detail in ReportDetail.allCases {
            var report = Fixtures.report(tasks: tasks + variedTasks())
            report.detail = detail
            let compact = try JSONRenderer.renderBytes(report, compactAbove: 0)
            let indented = try JSONRenderer.renderBytes(report)
            let path = WirelensCLI.temporaryPath("compact.json")
            defer { unlink(path) }
            try Data(compact).write(to: URL(fileURLWithPath: path))
            let python = try ProcessRunner.run("/usr/bin/python3", ["-c", """
                import json, re, sys
                # Numbers with a fraction or exponent keep their text: Python would write them its own way.
                document = json.load(open(sys.argv[1], encoding="utf-8"), parse_float=lambda text: "\\0F" + text + "\\0")
                text = json.dumps(document, indent=2, ensure_ascii=False)
                text = re.sub(r'"\\\\u0000F([^\\\\]*)\\\\u0000"', lambda m: m.group(1), text)
                sys.stdout.buffer.write(text.encode() + b"\\n")
                """, path], timeout: 60)
            XCTAssertEqual(python.status, 0, python.stderr)
            XCTAssertEqual(indented.count, python.stdout.utf8.count, "\(detail)")
            XCTAssertTrue(indented.elementsEqual(python.stdout.utf8), "\(detail): the indented document differs from Python's")
        }
    }

    func testCompactReportReadsBackAsTheReport() throws {
        for detail in ReportDetail.allCases {
            var report = Fixtures.report(tasks: variedTasks(), interrupted: true)
            report.detail = detail
            let compact = try JSONRenderer.renderBytes(report, compactAbove: 0)
            XCTAssertEqual(compact.filter { $0 == UInt8(ascii: "\n") }.count, 1, "one line, ending the document")
            XCTAssertEqual(compact.last, UInt8(ascii: "\n"))
            // A standard document holds no libcurl timers and no samples: they read back as zero and none.
            if detail == .standard {
                for t in report.tasks.indices {
                    for i in report.tasks[t].transactions.indices {
                        report.tasks[t].transactions[i].curlTimers = CurlTimers()
                        report.tasks[t].transactions[i].tcp?.samples = []
                    }
                }
            }
            XCTAssertEqual(try JSONRenderer.decode(Data(compact)), report, "\(detail)")
        }
    }

    func testChunkedRenderingGivesTheSameDocument() throws {
        let report = Fixtures.report(tasks: variedTasks())
        var pieces: [[UInt8]] = []
        try JSONRenderer.render(report, compactAbove: 0, chunkSize: 300) { pieces.append($0) }
        XCTAssertGreaterThan(pieces.count, 3, "a small chunk size splits the document")
        XCTAssertEqual(pieces.flatMap { $0 }, try JSONRenderer.renderBytes(report, compactAbove: 0))
    }

    func testMillisMatchTheDoubleForm() {
        var values: [Int64] = [0, 1, -1, 9, 10, 999, 1000, 1001, 1010, 1100, 123_456, -123_456, 86_400_000_000,
                               (1 << 50) - 1, 1 << 50, -(1 << 50) + 1, (1 << 53) - 1, 1 << 53, -(1 << 53), 1 << 60]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { values.append(Int64.random(in: -10_000_000_000...10_000_000_000, using: &generator)) }
        for _ in 0..<2_000 { values.append(Int64.random(in: (1 << 49)...(1 << 50), using: &generator)) }
        for micros in values {
            var fast: [UInt8] = []
            JSONBytes.appendMillis(micros: micros, to: &fast)
            var slow: [UInt8] = []
            JSONBytes.appendDouble(Format.millis(fromMicros: micros), to: &slow)
            XCTAssertEqual(String(decoding: fast, as: UTF8.self), String(decoding: slow, as: UTF8.self), "\(micros) µs")
        }
    }

    func testIntegersAndInstants() {
        for value in [Int64.min, -10, -1, 0, 7, 10, 99, 1_000_000, Int64.max] {
            var bytes: [UInt8] = []
            JSONBytes.appendInt(value, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(value))
        }
        for micros in [Fixtures.epoch, 0, -1, 253_402_300_799_999_999, 253_402_300_800_000_000, -62_167_219_200_000_001] {
            var bytes: [UInt8] = []
            WallClock.appendISO8601(micros: micros, to: &bytes)
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), WallClock.iso8601(micros: micros))
        }
        XCTAssertEqual(WallClock.iso8601(micros: Fixtures.epoch), "2025-07-31T22:13:20.123456Z")
    }
}
