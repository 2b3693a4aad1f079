import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `serve` with many checks: one engine for all of them (threads and file descriptors bounded, as the kernel counts
/// them), runs that overrun their interval skipped and counted, each check's `keep_alive` honoured on the shared
/// pool (as nginx logs its connections), and the vantage and shard flags refused with one line when malformed.
final class ServeScaleTests: XCTestCase {
    /// Starts `serve` with the configuration text (no history); returns it, its port and the config's path.
    private func startServe(_ configText: String) throws -> (ServerProcess, Int, String) {
        try ServeCommandTests.startServe(configText, ["--no-history"])
    }

    /// /metrics, through curl.
    private func metrics(_ port: Int) throws -> String {
        try ProcessRunner.run("/usr/bin/curl", ["-sS", "-m", "20", "http://127.0.0.1:\(port)/metrics"], timeout: 25).stdout
    }

    /// The value of the sample whose line starts with `prefix` (`name{labels}`), if present.
    private func value(_ text: String, _ prefix: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(prefix + " ") {
            return Double(line.dropFirst(prefix.count + 1))
        }
        return nil
    }

    /// Every sample of exposition text by its series (`name{labels}`).
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let number = Double(line[line.index(after: space)...]) else { continue }
            out[String(line[..<space])] = number
        }
        return out
    }

    /// The kernel's count of a process's threads (/proc/PID/status) and open file descriptors (/proc/PID/fd).
    private func threadsAndDescriptors(_ pid: pid_t) -> (threads: Int, fds: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }),
              let threads = Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)),
              let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count else { return nil }
        return (threads, fds)
    }

    /// 300 checks every second on one process: every one runs, while the process's threads and file descriptors
    /// stay within a small bound. An engine (a loop thread and a pool) per run or per check would not.
    func testManyChecksShareOneEngine() throws {
        let s = try TestServers.get()
        let count = 300
        var yaml = "defaults: { timeout: 1s }\nchecks:\n"
        for index in 0..<count {
            yaml += "  - name: c\(index)\n    url: \(s.http("/small.txt"))\n    every: 1s\n    expect: { status: 200 }\n"
        }
        let (serve, port, config) = try startServe(yaml)
        defer { unlink(config); _ = serve.stop() }
        var peakThreads = 0
        var peakDescriptors = 0
        var samples: [String: Double] = [:]
        var ran = 0
        // Sample the kernel's counts every 50 ms until every check has run twice (bounded: 20 s).
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            for _ in 0..<10 {
                if let counts = threadsAndDescriptors(serve.pid) {
                    peakThreads = max(peakThreads, counts.threads)
                    peakDescriptors = max(peakDescriptors, counts.fds)
                }
                usleep(50_000)
            }
            samples = Self.samples(try metrics(port))
            ran = (0..<count).filter { (samples["wirelens_check_runs_total{check=\"c\($0)\"}"] ?? 0) >= 2 }.count
            if ran == count { break }
        }
        XCTAssertEqual(ran, count, "every check ran twice: \(serve.stderr)")
        let passed = (0..<count).filter { samples["probe_success{check=\"c\($0)\"}"] == 1 }.count
        XCTAssertEqual(passed, count)
        // One loop thread for every check, NIO's one, Swift's cooperative pool and a few of the runtime's.
        XCTAssertLessThanOrEqual(peakThreads, 24, "threads of serve with \(count) checks")
        XCTAssertLessThanOrEqual(peakDescriptors, 96, "file descriptors of serve with \(count) checks")
    }

    /// A check whose every run takes its whole timeout (1 s, the interval too) overruns each tick: the ticks it
    /// missed are skipped and counted, never queued (the target never sees two of its requests at once).
    func testOverrunningRunsAreSkippedAndCounted() throws {
        let s = try TestServers.get()
        let (serve, port, config) = try startServe("""
            checks:
              - name: slow
                url: \(s.target("/delay/3000?key=\(UUID().uuidString)"))
                timeout: 1s
                every: 1s
            """)
        defer { unlink(config); _ = serve.stop() }
        var text = ""
        var peak = 0
        for _ in 0..<150 where (value(text, "wirelens_check_runs_total{check=\"slow\"}") ?? 0) < 3 {
            let listing = try ProcessRunner.run("/usr/bin/ss", ["-Htnp", "state", "established",
                                                                "dst", "127.0.0.1:\(s.targetPort)"], timeout: 10)
            peak = max(peak, listing.stdout.split(separator: "\n").filter { $0.contains("pid=\(serve.pid),") }.count)
            text = try metrics(port)
            usleep(100_000)
        }
        let runs = try XCTUnwrap(value(text, "wirelens_check_runs_total{check=\"slow\"}"), text)
        XCTAssertGreaterThanOrEqual(runs, 3, text)
        let skipped = try XCTUnwrap(value(text, "wirelens_check_skipped_total{check=\"slow\"}"), text)
        XCTAssertGreaterThanOrEqual(skipped, runs, "each run outlasted the next tick, which was skipped")
        XCTAssertEqual(value(text, "wirelens_check_failures_total{check=\"slow\",reason=\"timeout.total\"}"), runs)
        XCTAssertEqual(peak, 1, "never two runs of the check at once, as the kernel lists serve's connections")
    }

    /// On the shared engine each check's keep_alive still decides: nginx logs the kept check's requests on one
    /// connection (its request count rising) and each of the other's on a connection of its own.
    func testKeepAliveIsPerCheckOnTheSharedPool() throws {
        let s = try TestServers.get()
        let key = UUID().uuidString
        let (serve, port, config) = try startServe("""
            checks:
              - name: kept
                url: \(s.http("/conn/small.txt?k=kept-\(key)"))
                keep_alive: true
                timeout: 1s
                every: 1s
              - name: fresh
                url: \(s.http("/conn/small.txt?k=fresh-\(key)"))
                timeout: 1s
                every: 1s
            """)
        defer { unlink(config); _ = serve.stop() }
        var text = ""
        for _ in 0..<100 where ["kept", "fresh"].contains(where: {
            (value(text, "wirelens_check_runs_total{check=\"\($0)\"}") ?? 0) < 3 }) {
            usleep(200_000)
            text = try metrics(port)
        }
        let log = try String(contentsOfFile: s.uploadRoot + "/connections.log", encoding: .utf8)
        func lines(_ tag: String) -> [(connection: String, requests: Int)] {
            log.split(separator: "\n").filter { $0.hasSuffix("k=\(tag)-\(key)") }.compactMap { line in
                let fields = line.split(separator: " ")
                return fields.count >= 2 ? (String(fields[0]), Int(fields[1]) ?? 0) : nil
            }
        }
        let kept = lines("kept")
        let fresh = lines("fresh")
        XCTAssertGreaterThanOrEqual(kept.count, 3, log)
        XCTAssertGreaterThanOrEqual(fresh.count, 3, log)
        XCTAssertEqual(Set(kept.map(\.connection)).count, 1, "the kept check's runs share one connection: \(kept)")
        XCTAssertEqual(kept.map(\.requests), Array(1...kept.count))
        XCTAssertEqual(Set(fresh.map(\.connection)).count, fresh.count, "each fresh run has its own connection: \(fresh)")
        XCTAssertTrue(fresh.allSatisfy { $0.requests == 1 }, "\(fresh)")
    }

    /// Malformed --shard and --vantage: one line naming the input, exit 2, for serve and check alike.
    func testBadShardAndVantageAreOneLineErrors() throws {
        let config = try CheckCommandTests.writeConfig("checks:\n  - name: a\n    url: http://127.0.0.1:1/\n")
        defer { unlink(config) }
        let cases: [([String], String)] = [
            (["--shard", "3/2"], "wirelens: --shard '3/2' needs K from 1 to N (2): shards are numbered from 1\n"),
            (["--shard", "0/2"], "wirelens: --shard '0/2' needs K from 1 to N (2): shards are numbered from 1\n"),
            (["--shard", "x/y"], "wirelens: --shard 'x/y' is not K/N; write e.g. 1/2 (the first of two instances)\n"),
            (["--vantage", "eu\u{1b}[31mwest"], "wirelens: --vantage 'eu\\u{1B}[31mwest' has a character outside letters, "
                + "digits, '-', '_', '.' and ':' (the vantage is a label value typed in PromQL)\n"),
            (["--vantage", ""], "wirelens: --vantage '' is empty; name the place this instance checks from, e.g. eu-west-1\n"),
        ]
        for (flags, expected) in cases {
            for command in [["serve", "--config", config, "--listen", "127.0.0.1:0"], ["check", config]] {
                let outcome = try ProcessRunner.run(CheckCommandTests.binary, command + flags + ["--no-history"], timeout: 30)
                XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, "\(command) \(flags): \(outcome.stderr)")
                XCTAssertEqual(outcome.stderr, expected, "\(command) \(flags)")
            }
        }
    }

    /// `check --vantage` labels every sample, `--shard` keeps the checks of its shard (by FNV-1a 64, computed here
    /// by Python), and the interval shorter than the timeout is the configuration's FILE:LINE: KEY error.
    func testCheckTakesVantageAndShard() throws {
        let s = try TestServers.get()
        let names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
        let config = try CheckCommandTests.writeConfig("checks:\n" + names.map {
            "  - name: \($0)\n    url: \(s.http("/small.txt"))\n"
        }.joined())
        defer { unlink(config) }
        let oracle = try ProcessRunner.run("/usr/bin/python3", ["-c", """
            import sys
            def fnv(s):
                h = 14695981039346656037
                for b in s.encode():
                    h = ((h ^ b) * 1099511628211) % 2**64
                return h
            print(" ".join(n for n in sys.argv[1:] if fnv(n) % 3 == 1))
            """] + names, timeout: 30)
        let expected = oracle.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let outcome = try ProcessRunner.run(CheckCommandTests.binary, [
            "check", config, "--format", "prometheus", "--no-history", "--vantage", "lab:1", "--shard", "2/3",
        ], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let successes = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("probe_success{") }
        let wanted: [String] = expected.map { name in "probe_success{check=\"\(name)\",vantage=\"lab:1\"} 1" }
        XCTAssertEqual(successes.map(String.init), wanted)
        let samples: [Substring] = outcome.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertTrue(samples.allSatisfy { $0.contains(",vantage=\"lab:1\"") }, outcome.stdout)

        let short = try CheckCommandTests.writeConfig("checks:\n  - name: a\n    url: http://127.0.0.1:1/\n    timeout: 20s\n    every: 10s\n")
        defer { unlink(short) }
        let refused = try ProcessRunner.run(CheckCommandTests.binary, ["serve", "--config", short, "--listen", "127.0.0.1:0", "--no-history"], timeout: 30)
        XCTAssertEqual(refused.status, ExitStatus.usage.rawValue)
        XCTAssertEqual(refused.stderr, "wirelens: \(short):5: checks[0].every: 10.00s is shorter than the check's timeout "
                           + "20.00s; a run could outlast its interval: give every ≥ timeout\n")
    }
}
