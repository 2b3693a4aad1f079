import Foundation
import WirelensDigest
import WirelensCore
import XCTest
@testable import WirelensTarget

/// Shaping per connection (rate cap, latency, max requests, keep-alive off) and seeded part failures, through curl.
/// Timing assertions are lower bounds only.
final class TargetShapingTests: XCTestCase {
    /// The number of TCP connections curl opened for one invocation (from its verbose output).
    private func connections(_ target: TargetHarness, _ urls: [String]) throws -> Int {
        let outcome = try target.curl(["-v"] + urls.flatMap { [$0, "-o", "/dev/null"] })
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stderr.components(separatedBy: "* Connected to").count - 1
    }

    func testRateCapSlowsDownloadsAndUploads() async throws {
        try await TargetHarness.with({ $0.rateBytesPerSecond = 200_000 }) { target in
            let down = try target.curl(["-o", target.path("down"), "-w", "%{time_total}", target.url("/bytes/100000")])
            XCTAssertEqual(down.status, 0, down.stderr)
            XCTAssertGreaterThanOrEqual(Double(down.stdout) ?? 0, 0.4, "100 KB at 200 KB/s")
            XCTAssertEqual(try TargetHarness.sha256sum(target.path("down")), SHA256Digest.hex(of: PatternBytes.bytes(offset: 0, count: 100_000)))

            let file = try target.randomFile("up", count: 100_000)
            let up = try target.curl(["-T", file, "-o", target.path("answer"), "-w", "%{time_total}", target.url("/upload/r")])
            XCTAssertEqual(up.status, 0, up.stderr)
            XCTAssertGreaterThanOrEqual(Double(up.stdout) ?? 0, 0.4, "100 KB up at 200 KB/s")
            let answer = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: target.path("answer")))) as? [String: Any]
            XCTAssertEqual(answer?["sha256"] as? String, try TargetHarness.sha256sum(file))
        }
    }

    func testLatencyIsAddedBeforeEveryResponse() async throws {
        try await TargetHarness.with({ $0.latencyMicros = 200_000 }) { target in
            let outcome = try target.curl(["-w", "%{time_total}\n", target.url("/bytes/1"), "-o", "/dev/null",
                                           target.url("/bytes/1"), "-o", "/dev/null"])
            let times = outcome.stdout.split(separator: "\n").compactMap { Double($0) }
            XCTAssertEqual(times.count, 2)
            for time in times { XCTAssertGreaterThanOrEqual(time, 0.2) }
        }
    }

    func testMaxRequestsKeepAliveOffAndDefaultReuse() async throws {
        let urls = { (target: TargetHarness) in (0..<4).map { target.url("/bytes/\($0 + 1)") } }
        try await TargetHarness.with { reusing in
            XCTAssertEqual(try connections(reusing, urls(reusing)), 1)
        }
        try await TargetHarness.with({ $0.maxRequestsPerConnection = 2 }) { capped in
            XCTAssertEqual(try connections(capped, urls(capped)), 2)
            let second = try capped.curl(["-D", "-", "-o", "/dev/null", capped.url("/bytes/1"), "-o", "/dev/null", capped.url("/bytes/1")])
            XCTAssertEqual(second.stdout.lowercased().components(separatedBy: "connection: close").count - 1, 1,
                           "the second answer closes: \(second.stdout)")
        }
        try await TargetHarness.with({ $0.keepAlive = false }) { closing in
            XCTAssertEqual(try connections(closing, urls(closing)), 4)
        }
    }

    /// Sends part `index` until it succeeds (at most 20 attempts); returns the statuses seen.
    private func sendUntilAccepted(_ target: TargetHarness, slice: String, id: String, index: Int, range: String) throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<20 {
            let status = try target.fetch(["-T", slice, "-H", "Content-Range: bytes \(range)", target.url("/upload/\(id)/part/\(index)")]).status
            statuses.append(status)
            if status != 503 { break }
        }
        return statuses
    }

    func testPartFailuresFollowTheSeedAndRetriesComplete() async throws {
        let policy = PartFailurePolicy(fraction: 0.4, seed: 7)
        var runs: [[[Int]]] = []
        for _ in 0..<2 {
            try await TargetHarness.with({ $0.partFailures = policy }) { target in
                let size = 1000
                let file = try target.randomFile("file", count: size * 10)
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                var statuses: [[Int]] = []
                for index in 0..<10 {
                    let slice = target.path("slice\(index)")
                    try data.subdata(in: index * size..<(index + 1) * size).write(to: URL(fileURLWithPath: slice))
                    statuses.append(try sendUntilAccepted(target, slice: slice, id: "f", index: index,
                                                          range: "\(index * size)-\((index + 1) * size - 1)/\(size * 10)"))
            }
            // Every attempt's outcome is the policy's.
            for (index, attempts) in statuses.enumerated() {
                XCTAssertEqual(attempts.last, 200)
                for (n, status) in attempts.enumerated() {
                    XCTAssertEqual(status == 503, policy.fails(id: "f", index: index, attempt: n + 1), "part \(index) attempt \(n + 1)")
                }
            }
            XCTAssertGreaterThan(statuses.map(\.count).reduce(0, +), 10, "some part failed at least once")
            let done = try target.json(["-X", "POST", target.url("/upload/f/complete")])
            XCTAssertEqual(done.object["sha256"] as? String, try TargetHarness.sha256sum(file))
            runs.append(statuses)
            }
        }
        XCTAssertEqual(runs[0], runs[1], "the same seed repeats the same failures")
    }
}
