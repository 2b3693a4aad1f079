import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensProbe
import WirelensCurl

/// The engine against real loopback servers: nginx (HTTP/1.1, HTTPS with h2, h2c), the built target and slowpeer.py.
final class EngineIntegrationTests: XCTestCase {
    private func run(_ specs: [TaskSpec], _ configure: (inout ProbeOptions) -> Void = { _ in }) async throws -> [TaskRecord] {
        var options = ProbeOptions()
        configure(&options)
        let engine = try Engine(options: options)
        return await engine.run(specs)
    }

    private func gets(_ url: String, _ count: Int) -> [TaskSpec] {
        Array(repeating: TaskSpec(url: url), count: count)
    }

    /// Every transaction's phases tile its total, and its instants are ordered.
    ///
    /// The one span outside the phases is libcurl's own set-up, from the last set-up instant (TLS, connect or name
    /// resolution done, or the queue left) to the first request byte: it is the loop's time, a few microseconds
    /// on a quiet machine and milliseconds on a loaded one (a CI run's reused connection: 2.9 ms), so it is
    /// measured from the timeline, not bounded. Anything else missing from the sum is a phase lost.
    private func assertPhasesAccountForTotal(_ tasks: [TaskRecord], file: StaticString = #filePath, line: UInt = #line) {
        for task in tasks {
            for tx in task.transactions {
                let t = tx.timeline, p = tx.phases
                let setupEnd = t.secureConnectionEnd ?? t.connectEnd ?? t.domainLookupEnd ?? t.fetchStart + (p.queue ?? 0)
                let setupGap = (t.requestStart ?? setupEnd) - setupEnd
                XCTAssertGreaterThanOrEqual(setupGap, 0, "the request starts before the set-up ends: \(t)",
                                            file: file, line: line)
                // Each phase is truncated to whole microseconds on its own.
                XCTAssertLessThanOrEqual(abs(p.sumOfParts + setupGap - p.total), 8,
                                         "phases \(p) and set-up \(setupGap) µs do not add up", file: file, line: line)
                let instants = t.fields.compactMap(\.value)
                XCTAssertEqual(instants, instants.sorted(), "timeline out of order: \(t)", file: file, line: line)
            }
        }
    }

    /// An engine nobody holds goes away (its loop thread stops): one dropped right after init, one after a run.
    func testReleasedEnginesAreFreed() async throws {
        let servers = try TestServers.get()
        weak var idle: Engine?
        weak var used: Engine?
        do {
            let engine = try Engine(options: ProbeOptions())
            idle = engine
        }
        do {
            let engine = try Engine(options: ProbeOptions())
            used = engine
            let tasks = await engine.run([TaskSpec(url: servers.http("/small.txt"))])
            XCTAssertEqual(tasks.first?.statusCode, 200)
        }
        XCTAssertNil(idle, "an engine released right after init is freed")
        XCTAssertNil(used, "an engine released after a run is freed")
    }

    func testSequentialRequestsReuseOneConnection() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.http("/small.txt"), 20))
        XCTAssertEqual(tasks.count, 20)
        XCTAssertTrue(tasks.allSatisfy { $0.succeeded && $0.statusCode == 200 })
        let txs = tasks.flatMap(\.transactions)
        XCTAssertEqual(txs.filter { !$0.reusedConnection }.count, 1)
        XCTAssertEqual(txs.filter(\.reusedConnection).count, 19)
        XCTAssertEqual(Set(txs.compactMap(\.localPort)).count, 1, "all 20 share one local port")
        XCTAssertEqual(Set(txs.compactMap(\.connectionId)).count, 1)
        // A reused connection has no DNS, connect or TLS phase: null, never 0.
        for tx in txs where tx.reusedConnection {
            XCTAssertNil(tx.phases.dns)
            XCTAssertNil(tx.phases.connect)
            XCTAssertNil(tx.phases.tls)
            XCTAssertNil(tx.timeline.connectStart)
        }
        XCTAssertNotNil(txs[0].phases.connect)
        XCTAssertNil(txs[0].phases.dns, "an IP literal is not resolved")
        XCTAssertEqual(txs[0].networkProtocolName, "http/1.1")
        XCTAssertEqual(txs[0].remotePort, servers.httpPort)
        assertPhasesAccountForTotal(tasks)
    }

    func testRoundsRepeatTheSpecsInOrder() async throws {
        let servers = try TestServers.get()
        let engine = try Engine(options: ProbeOptions())
        let specs = [TaskSpec(url: servers.http("/small.txt")), TaskSpec(url: servers.http("/status/404"))]
        let tasks = await engine.run(specs, rounds: 3)
        XCTAssertEqual(tasks.map(\.index), Array(0..<6))
        XCTAssertEqual(tasks.map(\.statusCode), [200, 404, 200, 404, 200, 404])
        XCTAssertEqual(tasks.map(\.url), Array(repeating: specs.map(\.url), count: 3).flatMap { $0 })
        let none = await engine.run(specs, rounds: 0)
        XCTAssertTrue(none.isEmpty)
    }

    func testNoReuseOpensAConnectionPerRequest() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.http("/small.txt"), 20)) { $0.reuseConnections = false }
        let txs = tasks.flatMap(\.transactions)
        XCTAssertEqual(txs.count, 20)
        XCTAssertTrue(txs.allSatisfy { !$0.reusedConnection && $0.phases.connect != nil })
        XCTAssertEqual(Set(txs.compactMap(\.localPort)).count, 20, "20 distinct local ports")
        assertPhasesAccountForTotal(tasks)
    }

    func testHostLimitCapsSimultaneousConnectionsAndShowsQueueWait() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.target("/delay/200"), 8)) {
            $0.concurrency = 8
            $0.maxHostConnections = 2
        }
        XCTAssertTrue(tasks.allSatisfy(\.succeeded))
        let txs = tasks.flatMap(\.transactions)
        // Independently of Summary: sweep each local port's busy intervals.
        var spans: [Int: (Int64, Int64)] = [:]
        for tx in txs {
            guard let port = tx.localPort, let end = tx.timeline.responseEnd else {
                XCTFail("a transaction without a port or an end")
                continue
            }
            let start = tx.timeline.connectStart ?? tx.timeline.requestStart!
            let old = spans[port] ?? (start, end)
            spans[port] = (min(old.0, start), max(old.1, end))
        }
        XCTAssertEqual(spans.count, 2, "two connections in all")
        var peak = 0
        for (_, span) in spans {
            let overlapping = spans.values.filter { $0.0 < span.1 && span.0 < $0.1 }.count
            peak = max(peak, overlapping)
        }
        XCTAssertLessThanOrEqual(peak, 2)
        let queued = txs.compactMap(\.phases.queue).filter { $0 > 150_000 }
        XCTAssertGreaterThanOrEqual(queued.count, 4, "six transfers wait for a slot; at least 4 wait ≥ 150 ms")
        XCTAssertEqual(Summary.build(tasks: tasks).connections.maxOpenAtOnce, 2)
        assertPhasesAccountForTotal(tasks)
    }

    func testHTTPSReportsTLSPhaseVersionAndHTTP2() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.https("/small.txt"), 3)) { $0.caFile = servers.certPath }
        let txs = tasks.flatMap(\.transactions)
        XCTAssertTrue(tasks.allSatisfy(\.succeeded), "\(tasks.compactMap(\.error))")
        XCTAssertNotNil(txs[0].phases.tls)
        XCTAssertNotNil(txs[0].phases.dns, "localhost is resolved")
        XCTAssertTrue(txs[0].tlsVersion?.hasPrefix("TLSv1.") == true, "\(String(describing: txs[0].tlsVersion))")
        XCTAssertEqual(txs.map(\.networkProtocolName), ["h2", "h2", "h2"])
        XCTAssertEqual(txs[0].alpn, "h2")
        XCTAssertTrue(txs[1].reusedConnection)
        XCTAssertNil(txs[1].phases.tls)
        XCTAssertEqual(txs[1].tlsVersion, txs[0].tlsVersion, "a reused connection keeps its TLS version")
        assertPhasesAccountForTotal(tasks)
    }

    func testHTTP11OverTLSWhenAsked() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.https("/small.txt"), 1)) {
            $0.caFile = servers.certPath
            $0.httpVersion = .http1_1
        }
        XCTAssertEqual(tasks.first?.transactions.first?.networkProtocolName, "http/1.1")
    }

    func testH2CPriorKnowledgeSucceedsRepeatedly() async throws {
        let servers = try TestServers.get()
        let tasks = try await run(gets(servers.h2c("/small.txt"), 4)) { $0.httpVersion = .http2PriorKnowledge }
        XCTAssertTrue(tasks.allSatisfy(\.succeeded), "\(tasks.compactMap(\.error))")
        XCTAssertTrue(tasks.flatMap(\.transactions).allSatisfy { $0.networkProtocolName == "h2" })
    }

    func testRedirectChainIsOneTransactionPerHop() async throws {
        let servers = try TestServers.get()
        let tasks = try await run([TaskSpec(url: servers.http("/hops/3"))])
        let task = try XCTUnwrap(tasks.first)
        XCTAssertEqual(task.transactions.count, 3)
        XCTAssertEqual(task.redirectCount, 2)
        XCTAssertEqual(task.transactions.map(\.statusCode), [302, 302, 200])
        XCTAssertEqual(task.transactions.map(\.kind), [.initial, .redirect, .redirect])
        XCTAssertTrue(task.transactions[2].url.hasSuffix("/hops/1"))
        XCTAssertEqual(task.statusCode, 200)
        XCTAssertLessThanOrEqual(task.transactions[0].timeline.responseEnd!, task.transactions[1].timeline.fetchStart)
    }

    func testStalledResponseTripsIdleTimeout() async throws {
        let servers = try TestServers.get()
        let began = Date()
        let tasks = try await run([TaskSpec(url: servers.target("/bytes/1000?pause_after=100&pause=5"))]) { $0.idleTimeout = 300_000 }
        let task = try XCTUnwrap(tasks.first)
        XCTAssertEqual(task.error?.errorClass, .idleTimeout)
        XCTAssertEqual(task.transactions.first?.responseBodyBytes, 100, "the first 100 bytes arrived before the stall")
        XCTAssertLessThan(Date().timeIntervalSince(began), 3, "ended by the idle timeout, not by the server")
    }

    func testTotalTimeoutEndsASlowDownload() async throws {
        let servers = try TestServers.get()
        let tasks = try await run([TaskSpec(url: servers.http("/slow/1m.bin"))]) { $0.totalTimeout = 400_000 }
        let task = try XCTUnwrap(tasks.first)
        XCTAssertEqual(task.error?.errorClass, .totalTimeout)
        XCTAssertLessThan(task.duration, 1_500_000)
        XCTAssertGreaterThanOrEqual(task.duration, 390_000)
    }

    /// libcurl 7.88 stamps STARTTRANSFER at the first upload byte; Wirelens' own responseStart must not.
    func testSlowAnsweringUploadPutsServerTimeInWaitNotSend() async throws {
        let servers = try TestServers.get()
        let tasks = try await run([TaskSpec(url: servers.target("/upload/answer-late?stall=0.5"), method: "POST",
                                            body: .generated(size: 256 * 1024))]) { $0.expectContinue = false }
        let tx = try XCTUnwrap(tasks.first?.transactions.first)
        XCTAssertEqual(tx.statusCode, 200)
        XCTAssertEqual(tx.requestBodyBytes, 256 * 1024)
        let wait = try XCTUnwrap(tx.phases.wait)
        let send = try XCTUnwrap(tx.phases.send)
        XCTAssertGreaterThanOrEqual(wait, 450_000, "the server's 500 ms are server wait")
        XCTAssertLessThan(send, 300_000, "the upload itself is fast on loopback")
        let responseOffset = tx.timeline.responseStart! - tx.timeline.fetchStart
        XCTAssertGreaterThanOrEqual(responseOffset, 500_000)
        if let v = Libcurl.description.versionTriple, (v.0, v.1) < (8, 3) {
            XCTAssertLessThan(tx.curlTimers.startTransfer, 450_000, "libcurl's own STARTTRANSFER is early for uploads")
        }
    }

    func testExpectContinueWaitIsMeasured() async throws {
        let servers = try TestServers.get()
        let tasks = try await run([TaskSpec(url: servers.target("/upload/expect"), method: "PUT",
                                            body: .generated(size: 2 * 1024 * 1024))])
        let tx = try XCTUnwrap(tasks.first?.transactions.first)
        XCTAssertEqual(tx.statusCode, 200)
        XCTAssertNotNil(tx.expectContinueWait, "libcurl sent Expect: 100-continue for a 2 MiB body")
    }

    func testRequestHeadersCarryTheUserAgentAndTheUsersHeaders() async throws {
        let servers = try TestServers.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wl-echo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func echo(_ name: String, _ configure: (inout ProbeOptions) -> Void) async throws -> String {
            let path = directory.appendingPathComponent(name).path
            let tasks = try await run([TaskSpec(url: servers.http("/echo/headers"), outputPath: path)], configure)
            XCTAssertEqual(tasks.first?.statusCode, 200)
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        let plain = try await echo("plain") { _ in }
        XCTAssertTrue(plain.contains("user-agent=wirelens/\(WirelensVersion.current)\n"), plain)
        XCTAssertTrue(plain.contains("x-trace=\n"), plain)
        let custom = try await echo("custom") {
            $0.headers = [HeaderField(name: "X-Trace", value: "abc"), HeaderField(name: "User-Agent", value: "probe/9")]
            $0.expectContinue = false
        }
        XCTAssertTrue(custom.contains("user-agent=probe/9\n"), custom)
        XCTAssertTrue(custom.contains("x-trace=abc\n"), custom)
        XCTAssertTrue(custom.contains("expect=\n"), "a GET sends no Expect header: \(custom)")
    }

    /// An engine given a header or User-Agent with CR, LF or NUL (the CLI and the check configuration refuse them
    /// first) refuses to start rather than let libcurl send it.
    func testEngineRefusesHeadersThatSplitTheRequest() {
        for (name, value) in [("X-Evil", "a\r\nInjected: b"), ("X-Evil\nInjected", "b"), ("X-Nul", "a\u{0}b")] {
            var options = ProbeOptions()
            options.headers = [HeaderField(name: name, value: value)]
            XCTAssertThrowsError(try Engine(options: options), name)
        }
        var agent = ProbeOptions()
        agent.userAgent = "probe\r\nInjected: b"
        XCTAssertThrowsError(try Engine(options: agent))
    }

    func testRetriesFlakyServerUntilSuccess() async throws {
        let servers = try TestServers.get()
        let key = "k\(UUID().uuidString.prefix(8))"
        let tasks = try await run([TaskSpec(url: servers.target("/status/200?fail_first=2&retry_after=0&key=\(key)"))]) {
            $0.retry = RetryPolicy(maxRetries: 3, baseDelay: 10_000, maxDelay: 100_000)
        }
        let task = try XCTUnwrap(tasks.first)
        XCTAssertEqual(task.retries, 2)
        XCTAssertEqual(task.transactions.map(\.statusCode), [503, 503, 200])
        XCTAssertEqual(task.transactions.map(\.kind), [.initial, .retry, .retry])
        XCTAssertTrue(task.succeeded)
    }

    func testUploadStreamsAFileToNginx() async throws {
        let servers = try TestServers.get()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-upload-\(UUID().uuidString)").path
        let size = 3 * 1024 * 1024 + 17
        _ = FileManager.default.createFile(atPath: path, contents: Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let name = "up-\(UUID().uuidString).bin"
        let tasks = try await run([TaskSpec(url: servers.http("/upload/\(name)"), method: "PUT",
                                            body: .file(path: path, size: Int64(size)))])
        let task = try XCTUnwrap(tasks.first)
        XCTAssertTrue(task.succeeded, "\(String(describing: task.error))")
        XCTAssertEqual(task.transactions.first?.requestBodyBytes, Int64(size))
        XCTAssertTrue([201, 204].contains(task.statusCode ?? 0))
        let stored = try XCTUnwrap(FileManager.default.enumerator(atPath: servers.uploadRoot)?
            .compactMap { $0 as? String }.first { $0.hasSuffix(name) })
        let storedData = try Data(contentsOf: URL(fileURLWithPath: servers.uploadRoot).appendingPathComponent(stored))
        XCTAssertEqual(storedData, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testFailuresAreClassified() async throws {
        let servers = try TestServers.get()
        let tasks = try await run([
            TaskSpec(url: "http://127.0.0.1:1/"),
            TaskSpec(url: "http://wirelens-test.invalid/"),
            TaskSpec(url: servers.https("/small.txt")),
            TaskSpec(url: servers.http("/status/404")),
        ]) { $0.concurrency = 4 }
        XCTAssertEqual(tasks.map { $0.error?.errorClass }, [.connect, .dns, .tls, .http])
        let refused = tasks[0].transactions[0]
        XCTAssertNotNil(refused.timeline.connectStart)
        XCTAssertNil(refused.timeline.connectEnd, "a refused connect never ended")
        XCTAssertNil(refused.timeline.requestStart)
        XCTAssertEqual(TaskFailures(tasks).firstTransportError, .connect, "the first transport failure in task order")
    }

    func testCancelEndsInFlightTasksAndKeepsFinishedOnes() async throws {
        let servers = try TestServers.get()
        let engine = try Engine(options: ProbeOptions())
        let specs = [TaskSpec(url: servers.target("/delay/10"))] + Array(repeating: TaskSpec(url: servers.target("/delay/3000")), count: 5)
        async let records = engine.run(specs)
        try await Task.sleep(nanoseconds: 500_000_000)
        engine.cancel()
        let tasks = await records
        XCTAssertEqual(tasks.count, 2, "the finished task and the cancelled one in flight; the rest never started")
        XCTAssertTrue(tasks[0].succeeded)
        XCTAssertEqual(tasks[1].error?.errorClass, .cancelled)
    }

    /// `cancelRuns()` ends a run as `cancel()` does (the task in flight cancelled, the rest never started), but the
    /// engine takes the next run (an S3 upload's abort after a part was given up on), which the target answers;
    /// after `cancel()` a run gets nothing.
    func testCancelRunsKeepsTheEngineTakingWork() async throws {
        let servers = try TestServers.get()
        let engine = try Engine(options: ProbeOptions())
        async let records = engine.run(Array(repeating: TaskSpec(url: servers.target("/delay/3000")), count: 3))
        try await Task.sleep(nanoseconds: 500_000_000)
        engine.cancelRuns()
        let cancelled = await records
        XCTAssertEqual(cancelled.map { $0.error?.errorClass }, [.cancelled], "the one in flight; the rest never started")
        let next = await engine.run([TaskSpec(url: servers.target("/delay/10"))])
        XCTAssertEqual(next.map(\.statusCode), [200])
        engine.cancel()
        let after = await engine.run([TaskSpec(url: servers.target("/delay/10"))])
        XCTAssertTrue(after.isEmpty, "\(after)")
    }
}
