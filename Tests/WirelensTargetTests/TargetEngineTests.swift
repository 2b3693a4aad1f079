import Foundation
import WirelensCore
import WirelensDigest
import WirelensProbe
import WirelensTestSupport
import XCTest
@testable import WirelensTarget

/// The target driven by the project's own libcurl engine: downloads, ranges, redirects, statuses, uploads,
/// segments, shaping and faults as the probe and the uploader see them.
final class TargetEngineTests: XCTestCase {
    /// Runs `specs` on a fresh engine with `configure` applied to its options.
    private func run(_ specs: [TaskSpec], _ configure: (inout ProbeOptions) -> Void = { _ in }) async throws -> [TaskRecord] {
        var options = ProbeOptions()
        configure(&options)
        return try await Engine(options: options).run(specs)
    }

    private func json(_ path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try XCTUnwrap(object, "not JSON: \((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")")
    }

    func testBytesRangesAndUnsatisfiableRanges() async throws {
        try await TargetHarness.with { target in
            let n = 300_007
            let whole = target.path("whole")
            let tasks = try await run([TaskSpec(url: target.url("/bytes/\(n)"), outputPath: whole)])
            XCTAssertEqual(tasks[0].statusCode, 200)
            XCTAssertTrue(tasks[0].succeeded)
            XCTAssertEqual(try SHA256Digest.hex(ofFile: whole), try TargetHarness.sha256sum(whole))
            XCTAssertEqual(try SHA256Digest.hex(ofFile: whole), SHA256Digest.hex(of: PatternBytes.bytes(offset: 0, count: n)))

            let part = target.path("part")
            let ranged = try await run([TaskSpec(url: target.url("/bytes/\(n)"), outputPath: part)]) {
                $0.headers = [HeaderField(name: "Range", value: "bytes=1000-")]
            }
            XCTAssertEqual(ranged[0].statusCode, 206)
            XCTAssertEqual(try SHA256Digest.hex(ofFile: part), try SHA256Digest.hex(ofFile: whole, offset: 1000))

            let unsatisfiable = try await run([TaskSpec(url: target.url("/bytes/\(n)"))]) {
                $0.headers = [HeaderField(name: "Range", value: "bytes=\(n)-")]
            }
            XCTAssertEqual(unsatisfiable[0].statusCode, 416)
            XCTAssertEqual(unsatisfiable[0].error?.errorClass, .http)
            let head = try await run([TaskSpec(url: target.url("/bytes/\(n)"), method: "HEAD")])
            XCTAssertEqual(head[0].statusCode, 200)
        }
    }

    func testRedirectChainStatusesAndDelay() async throws {
        try await TargetHarness.with { target in
            let tasks = try await run([
                TaskSpec(url: target.url("/redirect/3")), TaskSpec(url: target.url("/status/503")),
                TaskSpec(url: target.url("/status/204")), TaskSpec(url: target.url("/delay/250")),
                TaskSpec(url: target.url("/nowhere")),
            ])
            XCTAssertEqual(tasks.map(\.statusCode), [200, 503, 204, 200, 404])
            XCTAssertEqual(tasks[0].redirectCount, 3)
            XCTAssertEqual(tasks[0].transactions.count, 4)
            XCTAssertGreaterThanOrEqual(tasks[3].duration, 250_000)
        }
    }

    func testUploadAndSegmentsThroughTheEngine() async throws {
        try await TargetHarness.with { target in
            let total = 200_000
            let file = try target.randomFile("file", count: total)
            let expected = try TargetHarness.sha256sum(file)
            let answer = target.path("answer")
            let put = try await run([TaskSpec(url: target.url("/upload/e1"), method: "PUT",
                                              body: .file(path: file, size: Int64(total)), outputPath: answer)])
            XCTAssertEqual(put[0].statusCode, 200)
            XCTAssertEqual(try json(answer)["sha256"] as? String, expected)
            XCTAssertEqual(try json(answer)["bytes"] as? Int, total)

            // Two segments, each with its Content-Range, sent by the engine.
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            for (index, range) in [(1, 120_000..<total), (0, 0..<120_000)] {
                let slice = target.path("slice\(index)")
                try data.subdata(in: range).write(to: URL(fileURLWithPath: slice))
                let out = target.path("part\(index)")
                let tasks = try await run([TaskSpec(url: target.url("/upload/seg/part/\(index)"), method: "PUT",
                                                    body: .file(path: slice, size: Int64(range.count)), outputPath: out)]) {
                    $0.headers = [HeaderField(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)")]
                }
                XCTAssertEqual(tasks[0].statusCode, 200)
                XCTAssertEqual(try json(out)["sha256"] as? String, try TargetHarness.sha256sum(slice))
            }
            let done = target.path("done")
            let complete = try await run([TaskSpec(url: target.url("/upload/seg/complete"), method: "POST", outputPath: done)])
            XCTAssertEqual(complete[0].statusCode, 200)
            XCTAssertEqual(try json(done)["sha256"] as? String, expected)
            XCTAssertEqual(try json(done)["parts"] as? Int, 2)

            let listing = target.path("listing")
            let state = try await run([TaskSpec(url: target.url("/upload/seg"), outputPath: listing),
                                       TaskSpec(url: target.url("/upload/none/complete"), method: "POST")])
            XCTAssertEqual(state.map(\.statusCode), [200, 404])
            XCTAssertEqual(try json(listing)["ranges"] as? [[Int]], [[0, total - 1]])
            let wrongMethod = try await run([TaskSpec(url: target.url("/bytes/1"), method: "PUT", body: .generated(size: 10))])
            XCTAssertEqual(wrongMethod[0].statusCode, 405)
        }
    }

    func testConnectionLimitsAsTheEngineCountsConnections() async throws {
        let urls = { (target: TargetHarness) in (0..<4).map { TaskSpec(url: target.url("/bytes/\($0 + 10)")) } }
        for (configure, expected) in [({ (_: inout TargetConfig) in }, 1), ({ $0.maxRequestsPerConnection = 2 }, 2),
                                      ({ $0.keepAlive = false }, 4)] {
            try await TargetHarness.with(configure) { target in
                let tasks = try await run(urls(target))
                XCTAssertEqual(tasks.map(\.statusCode), [200, 200, 200, 200])
                let fresh = tasks.flatMap(\.transactions).filter { !$0.reusedConnection }.count
                XCTAssertEqual(fresh, expected, "new connections")
            }
        }
    }

    func testGeneratedBodiesAreThePatternPythonComputes() async throws {
        try await TargetHarness.with { target in
            let n = 100_003
            let answer = target.path("generated.json")
            let tasks = try await run([TaskSpec(url: target.url("/upload/generated"), method: "PUT",
                                                body: .generated(size: Int64(n)), outputPath: answer)])
            XCTAssertEqual(tasks[0].statusCode, 200)
            XCTAssertEqual(try json(answer)["bytes"] as? Int, n)
            XCTAssertEqual(try json(answer)["sha256"] as? String, try PatternOracle.sha256(count: n),
                           "a generated body is the documented pattern")
        }
    }

    func testShapedRateAndLatencyAsTheEngineSeesThem() async throws {
        try await TargetHarness.with({
            $0.rateBytesPerSecond = 200_000
            $0.latencyMicros = 100_000
        }) { target in
            let tasks = try await run([
                TaskSpec(url: target.url("/upload/r"), method: "PUT", body: .generated(size: 100_000)),
                TaskSpec(url: target.url("/bytes/100000")),
                TaskSpec(url: target.url("/bytes/1")),
            ])
            XCTAssertEqual(tasks.map(\.statusCode), [200, 200, 200])
            XCTAssertGreaterThanOrEqual(tasks[0].duration, 400_000, "100 KB up at 200 KB/s")
            XCTAssertGreaterThanOrEqual(tasks[1].duration, 400_000, "100 KB down at 200 KB/s")
            XCTAssertGreaterThanOrEqual(tasks[2].duration, 100_000, "latency")
        }
    }

    func testFaultsAsTheEngineSeesThem() async throws {
        try await TargetHarness.with { target in
            let tasks = try await run([
                TaskSpec(url: target.url("/bytes/1000000?reset_after=100000")),
                TaskSpec(url: target.url("/upload/x?reset_after=50000"), method: "PUT", body: .generated(size: 400_000)),
                TaskSpec(url: target.url("/bytes/10?status=429&retry_after=1")),
                TaskSpec(url: target.url("/bytes/10?stall=0.3")),
            ])
            XCTAssertEqual(tasks[0].error?.errorClass, .network, "\(String(describing: tasks[0].error))")
            XCTAssertEqual(tasks[1].error?.errorClass, .network, "\(String(describing: tasks[1].error))")
            XCTAssertEqual(tasks[2].statusCode, 429)
            XCTAssertEqual(tasks[3].statusCode, 200)
            XCTAssertGreaterThanOrEqual(tasks[3].duration, 300_000)
        }
    }
}
