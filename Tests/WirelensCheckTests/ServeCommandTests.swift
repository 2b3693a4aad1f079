import Foundation
import WirelensCore
import WirelensStore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens serve` under stress: SIGTERM while a check hangs, slowloris clients, oversized requests, an address
/// already in use, a damaged history database.
final class ServeCommandTests: XCTestCase {
    /// Starts `serve` with the configuration text and extra arguments; returns it, its port and the config's path.
    private func startServe(_ configText: String, _ arguments: [String]) throws -> (ServerProcess, Int, String) {
        try Self.startServe(configText, arguments)
    }

    /// Starts `serve` with the configuration text and extra arguments; returns it, its port and the config's path.
    static func startServe(_ configText: String, _ arguments: [String]) throws -> (ServerProcess, Int, String) {
        let config = try CheckCommandTests.writeConfig(configText)
        let serve = try ServerProcess(CheckCommandTests.binary,
                                      ["serve", "--config", config, "--listen", "127.0.0.1:0"] + arguments)
        guard let port = serve.announcedPort() else {
            unlink(config)
            throw TestServerError(message: "serve printed no address: \(serve.stderr)")
        }
        return (serve, port, config)
    }

    /// curl, bounded by `seconds` (its own -m and the runner's).
    private func curl(_ arguments: [String], seconds: Int = 10) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("/usr/bin/curl", ["-sS", "-m", "\(seconds)"] + arguments, timeout: TimeInterval(seconds + 5))
    }

    /// The established TCP connections `pid` holds to 127.0.0.1:`port`, as the kernel lists them (ss).
    private func connections(of pid: pid_t, to port: Int) throws -> Int {
        let listing = try ProcessRunner.run("/usr/bin/ss", ["-Htnp", "state", "established", "dst", "127.0.0.1:\(port)"],
                                            timeout: 10)
        return listing.stdout.split(separator: "\n").filter { $0.contains("pid=\(pid),") }.count
    }

    /// SIGTERM while two /probe runs of a check hang on a server that answers after two minutes: serve exits
    /// within a bound with its documented code (0), the checks in flight cancelled (no result stored as a
    /// failure), and the /probe client gets a whole answer or none.
    func testSIGTERMStopsServeWhileChecksHang() throws {
        let s = try TestServers.get()
        let database = CheckCommandTests.temporaryPath("history.sqlite")
        let (serve, port, config) = try startServe("""
            checks:
              - name: hang
                url: \(s.target("/delay/120000"))
                timeout: 300s
            """, ["--history", database])
        defer { unlink(config); CheckCommandTests.removeDatabase(database) }
        // Two /probe runs (the scheduled one may come at any moment of its 300 s interval: its place is its name's).
        let probes = try (0..<2).map { _ in
            try ServerProcess("/usr/bin/curl", ["-sS", "-m", "60", "-o", "/dev/null", "-w", "%{http_code}",
                                                "http://127.0.0.1:\(port)/probe?target=hang"])
        }
        let probe = probes[0]
        // Both runs in flight: two connections from serve to the stalling server (bounded: 10 s).
        var inFlight = 0
        for _ in 0..<100 where inFlight < 2 {
            inFlight = try connections(of: serve.pid, to: s.targetPort)
            if inFlight < 2 { usleep(100_000) }
        }
        XCTAssertGreaterThanOrEqual(inFlight, 2, "both /probe runs are in flight")

        // A liveness bound, far below the two minutes the server would take.
        XCTAssertEqual(serve.stop(seconds: 5), 0, "serve exits with 0 soon after SIGTERM: \(serve.stderr)")
        XCTAssertTrue(serve.stderr.contains("stopped"), serve.stderr)
        let probeExit = probe.waitForExit(seconds: 10)
        XCTAssertNotNil(probeExit, "the /probe client is not left hanging")
        // curl exits 0 after a whole answer (here 503: serve is stopping) and 52 when the server closed without one;
        // a half-written answer would be 18 (partial) or 56 (receive failure).
        XCTAssertTrue([0, 52].contains(probeExit ?? -1), "curl \(probeExit ?? -1): \(probe.stderr)")
        if probeExit == 0 { XCTAssertEqual(probe.stdout, "503") }
        XCTAssertNotNil(probes[1].waitForExit(seconds: 10), "the other /probe client is not left hanging")
        XCTAssertEqual(try CheckHistory(path: database).count(), 0, "a cancelled run is not a failed check")
    }

    /// 50 clients that send half a request head and then a byte now and then: /metrics keeps answering, and the
    /// server closes them once the header timeout (here 1 s) has passed, although they keep sending.
    func testSlowlorisClientsAreClosedAfterTheHeaderTimeout() throws {
        let s = try TestServers.get()
        let (serve, port, config) = try startServe("checks:\n  - name: small\n    url: \(s.http("/small.txt"))\n",
                                                   ["--no-history", "--header-timeout", "1s"])
        defer { unlink(config); _ = serve.stop() }
        let sockets = try (0..<50).map { _ in try LoopbackSocket.connect(port: port) }
        for socket in sockets { socket.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
        let metrics = try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/metrics"])
        XCTAssertEqual(metrics.stdout, "200", "/metrics answers while the slow clients hold their sockets: \(metrics.stderr)")

        // Dribble a byte every 200 ms to each socket still open; watch for the server's close (bounded: 10 s).
        var open = Set(sockets.indices)
        for _ in 0..<50 where !open.isEmpty {
            for index in open {
                sockets[index].send("x")
                if sockets[index].peerClosed(waitingMilliseconds: 0) { open.remove(index) }
            }
            usleep(200_000)
        }
        XCTAssertTrue(open.isEmpty, "\(open.count) of 50 slow clients still open: \(serve.stderr)")
        let after = try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/metrics"])
        XCTAssertEqual(after.stdout, "200", after.stderr)
    }

    /// A request head beyond the cap gets 431, a body beyond it 413, and the connection is closed.
    func testOversizedRequestsAreRefused() throws {
        let s = try TestServers.get()
        let (serve, port, config) = try startServe("checks:\n  - name: small\n    url: \(s.http("/small.txt"))\n",
                                                   ["--no-history"])
        let body = CheckCommandTests.temporaryPath("body.bin")
        defer { unlink(config); unlink(body); _ = serve.stop() }
        let url = "http://127.0.0.1:\(port)/metrics"
        let head = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Pad: " + String(repeating: "a", count: 16384), url])
        XCTAssertEqual(head.stdout, "431", head.stderr)
        let longURL = try curl(["-o", "/dev/null", "-w", "%{http_code}", url + "?" + String(repeating: "b", count: 16384)])
        XCTAssertEqual(longURL.stdout, "431", longURL.stderr)
        try Data(count: 2 << 20).write(to: URL(fileURLWithPath: body))
        let posted = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "GET", "--data-binary", "@\(body)", url])
        XCTAssertEqual(posted.stdout, "413", posted.stderr)
        let fine = try curl(["-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Pad: " + String(repeating: "a", count: 1024), url])
        XCTAssertEqual(fine.stdout, "200", "an ordinary head is answered: \(fine.stderr)")
    }

    /// The descriptors a process holds, as the kernel lists them (/proc/PID/fd).
    private func descriptors(of pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// After a load of /metrics scrapes and /probe runs (of a check that keeps its connections alive and one that
    /// does not), serve returns to the descriptors it held before the load, within one: the connections it accepted
    /// are closed, and the pool keeps no more idle connections than the checks that keep them need. The kernel's
    /// /proc/PID/fd is the oracle.
    func testServeReturnsToItsDescriptorsAfterALoad() throws {
        let servers = try TestServers.get()
        let (serve, port, config) = try startServe("""
            checks:
              - name: fresh
                url: \(servers.target("/bytes/100"))
                every: 60s
              - name: kept
                url: \(servers.target("/delay/20"))
                every: 60s
                keep_alive: true
            """, ["--no-history"])
        defer { _ = serve.stop(); unlink(config) }
        // Warm up: each check once, the engine and its pool made, one scrape.
        for path in ["/probe?target=fresh", "/probe?target=kept", "/metrics"] {
            let warm = try curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)\(path)"])
            XCTAssertEqual(warm.stdout, "200", warm.stderr)
        }
        usleep(300_000)
        let before = descriptors(of: serve.pid)
        XCTAssertGreaterThan(before, 0)
        let load = """
            import concurrent.futures, sys, urllib.request
            base = "http://127.0.0.1:\(port)"
            def get(path):
                try:
                    return urllib.request.urlopen(base + path, timeout=30).status
                except Exception as e:
                    return type(e).__name__
            with concurrent.futures.ThreadPoolExecutor(100) as pool:
                codes = list(pool.map(get, ["/metrics"] * 400))
                codes += list(pool.map(get, ["/probe?target=kept", "/probe?target=fresh"] * 60))
            bad = [c for c in codes if c != 200]
            print(len(codes), len(bad), bad[:5])
            """
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", load], timeout: 120)
        XCTAssertEqual(outcome.stdout.split(separator: " ").prefix(2).joined(separator: " "), "520 0",
                       outcome.stdout + outcome.stderr)
        var after = descriptors(of: serve.pid)
        for _ in 0..<50 where after > before + 1 {
            usleep(200_000)
            after = descriptors(of: serve.pid)
        }
        XCTAssertLessThanOrEqual(after, before + 1, "descriptors before the load \(before), after it \(after)")
    }

    /// A listen address another socket holds: one line naming it, and the documented exit code.
    func testListenAddressInUse() throws {
        let holder = try LoopbackSocket.listener()
        let config = try CheckCommandTests.writeConfig("checks:\n  - name: a\n    url: http://127.0.0.1:1/\n")
        defer { unlink(config) }
        let outcome = try ProcessRunner.run(CheckCommandTests.binary, [
            "serve", "--config", config, "--listen", "127.0.0.1:\(holder.port)", "--no-history",
        ], timeout: 30)
        XCTAssertEqual(outcome.status, ExitStatus.listenUnavailable.rawValue, outcome.stderr)
        XCTAssertEqual(outcome.stderr, "wirelens: 127.0.0.1:\(holder.port) is in use: pick another --listen\n")
    }

    /// A damaged history database: serve warns once, keeps running the checks and serving /metrics, and exits with
    /// the history code on SIGTERM.
    func testCorruptHistoryKeepsServing() throws {
        let s = try TestServers.get()
        let database = CheckCommandTests.temporaryPath("history.sqlite")
        defer { CheckCommandTests.removeDatabase(database) }
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(to: URL(fileURLWithPath: database))
        let (serve, port, config) = try startServe(
            "checks:\n  - name: small\n    url: \(s.http("/small.txt"))\n    every: 200ms\n    timeout: 200ms\n",
            ["--history", database])
        defer { unlink(config) }
        var metrics = ""
        for _ in 0..<100 where !metrics.contains("probe_success{check=\"small\"} 1") {
            metrics = try curl(["http://127.0.0.1:\(port)/metrics"]).stdout
            usleep(100_000)
        }
        XCTAssertTrue(metrics.contains("probe_success{check=\"small\"} 1"), metrics)
        usleep(600_000)  // a few more runs, none of which may add a line
        let stderr = serve.stderr
        XCTAssertEqual(serve.stop(), ExitStatus.historyUnavailable.rawValue, stderr)
        let warnings = stderr.split(separator: "\n").filter { $0.contains(database) }
        XCTAssertEqual(warnings.count, 1, stderr)
        XCTAssertTrue(warnings.first?.contains("move it away") ?? false, stderr)
    }
}
