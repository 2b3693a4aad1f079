import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WirelensCheck
import WirelensCore
import WirelensStore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// Prometheus exposition: promtool accepts it, `serve` answers /metrics and /probe for configured checks only,
/// and a real Prometheus scrapes it and answers a query for a metric.
final class PrometheusTests: XCTestCase {
    private func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(executable, arguments, timeout: timeout)
    }

    /// promtool's verdict on exposition text: nil when it is clean, else its complaint.
    private func promtoolProblems(_ text: String) throws -> String? {
        let path = CheckCommandTests.temporaryPath("metrics.prom")
        defer { unlink(path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let outcome = try run("/bin/sh", ["-c", "promtool check metrics < '\(path)'"])
        return outcome.status == 0 && outcome.stdout.isEmpty ? nil : "\(outcome.status): \(outcome.stdout)\(outcome.stderr)"
    }

    private func mixedConfig(_ s: TestServers) -> String {
        """
        checks:
          - name: small
            url: \(s.http("/small.txt"))
            expect: { status: 200 }
          - name: tls
            url: \(s.https("/small.txt"))
            cacert: \(s.certPath)
            expect: { status: 200, certificate: { min_days: 1 } }
          # Large enough that sending outlasts nginx's wait (writing the file) and a few round trips, so that
          # its verdict is the upload's split of the send time whatever the load: 64 KiB came out server-think
          # or too short to tell on a loaded machine, without the limited-time ratios.
          - name: upload
            url: \(s.http("/upload/prom-\(UUID().uuidString).bin"))
            upload: { size: 16MiB }
          - name: down
            url: \(s.http("/status/503"))
            expect: { status: 200 }
        """
    }

    func testCheckFormatPrometheusPassesPromtool() throws {
        let s = try TestServers.get()
        let config = try CheckCommandTests.writeConfig(mixedConfig(s))
        defer { unlink(config) }
        let outcome = try run(CheckCommandTests.binary, ["check", config, "--format", "prometheus", "--no-history"])
        XCTAssertEqual(outcome.status, ExitStatus.checkFailed.rawValue, "the 503 check fails: \(outcome.stderr)")
        let text = outcome.stdout
        XCTAssertNil(try promtoolProblems(text))
        let lines = Set(text.split(separator: "\n").map(String.init))
        XCTAssertTrue(lines.contains("probe_success{check=\"small\"} 1"), text)
        XCTAssertTrue(lines.contains("probe_success{check=\"down\"} 0"), text)
        XCTAssertTrue(lines.contains("probe_http_status_code{check=\"down\"} 503"), text)
        XCTAssertTrue(lines.contains("probe_http_version{check=\"small\"} 1.1"), text)
        XCTAssertTrue(lines.contains("wirelens_assertion_success{check=\"down\",assertion=\"status\"} 0"), text)
        XCTAssertTrue(text.contains("probe_http_duration_seconds{check=\"tls\",phase=\"tls\"} "), text)
        XCTAssertFalse(text.contains("probe_http_duration_seconds{check=\"small\",phase=\"tls\"}"),
                       "a phase that did not happen is absent, not 0")
        XCTAssertTrue(text.contains("probe_ssl_earliest_cert_expiry{check=\"tls\"} "), text)
        XCTAssertFalse(text.contains("probe_ssl_earliest_cert_expiry{check=\"small\"}"))
        XCTAssertTrue(text.contains("wirelens_upload_bytes_per_second{check=\"upload\"} "), text)
        XCTAssertFalse(text.contains("wirelens_upload_bytes_per_second{check=\"small\"}"))
        // The kernel's view and the verdict, per check (Linux).
        XCTAssertTrue(text.contains("wirelens_tcp_rtt_seconds{check=\"small\"} "), text)
        XCTAssertTrue(text.contains("wirelens_tcp_retransmitted_ratio{check=\"upload\"} "), text)
        XCTAssertTrue(text.contains("wirelens_tcp_limited_ratio{check=\"upload\",reason=\"receive_window\"} "), text)
        let verdicts = lines.filter { $0.hasPrefix("wirelens_diagnosis_info{check=\"small\",verdict=") }
        XCTAssertEqual(verdicts.count, 1, text)
        XCTAssertTrue(Verdict.allCases.contains { verdicts.first?.contains("verdict=\"\($0.rawValue)\"} 1") == true }, text)
    }

    func testRendererEscapesAndLeavesOutMissingPhases() throws {
        var timeline = Timeline(fetchStart: 1_000_000)
        timeline.requestStart = 1_000_100
        var transaction = TransactionMetrics(kind: .initial, url: "http://h/", method: "GET", timeline: timeline,
                                             phases: Phases(send: 50, total: 500), reusedConnection: true,
                                             proxyConnection: false, curlTimers: CurlTimers())
        transaction.networkProtocolName = "h2"
        let record = TaskRecord(index: 0, url: "http://h/", method: "GET", startedAt: 1_000_000, endedAt: 1_000_500,
                                redirectCount: 0, retries: 0, statusCode: nil, error: nil, transactions: [transaction])
        let result = CheckResult(name: "we\"ird\\name\n", url: "http://h/", startedAt: 2_000_000, record: record,
                                 failure: nil, assertions: [], certificateExpiry: nil)
        let text = PrometheusRenderer.render([result])
        XCTAssertTrue(text.contains("probe_success{check=\"we\\\"ird\\\\name\\n\"} 1\n"), text)
        XCTAssertTrue(text.contains("phase=\"processing\"} 0.000050\n"), text)
        for phase in ["resolve", "connect", "tls", "transfer"] {
            XCTAssertFalse(text.contains("phase=\"\(phase)\""), "\(phase) did not happen: \(text)")
        }
        XCTAssertFalse(text.contains("probe_http_status_code"), "no response, no status")
        XCTAssertTrue(text.contains("probe_http_version{check=\"we\\\"ird\\\\name\\n\"} 2\n"), text)
        XCTAssertNil(try promtoolProblems(text))
    }

    /// A GET through URLSession: status and body.
    private func get(_ url: String) async throws -> (Int, String) {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.timeoutInterval = 30
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// Debian's Prometheus on a free loopback port, scraping `ports` on 127.0.0.1 every second, with its
    /// configuration and storage at the paths given (the caller removes them).
    private func startPrometheus(scraping ports: [Int], config: String, storage: String) throws -> (ServerProcess, Int) {
        let promPort = try LoopbackSocket.listener().port  // free again once the listener is released
        let targets = ports.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", ")
        try """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: wirelens
                static_configs:
                  - targets: [\(targets)]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let prometheus = try ServerProcess("/usr/bin/prometheus", [
            "--config.file=\(config)", "--storage.tsdb.path=\(storage)", "--web.listen-address=127.0.0.1:\(promPort)",
        ])
        return (prometheus, promPort)
    }

    /// An instant query through Prometheus' HTTP API: each series of the result as its labels and value; nil when
    /// Prometheus did not answer with a success.
    private func query(_ promPort: Int, _ expression: String) async -> [(labels: [String: String], value: Double)]? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        guard let (status, body) = try? await get("http://127.0.0.1:\(promPort)/api/v1/query?query=\(encoded)"), status == 200,
              let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              json["status"] as? String == "success", let data = json["data"] as? [String: Any],
              let result = data["result"] as? [[String: Any]] else { return nil }
        return result.compactMap { series in
            guard let labels = series["metric"] as? [String: String], let pair = series["value"] as? [Any],
                  pair.count == 2, let text = pair[1] as? String, let value = Double(text) else { return nil }
            return (labels, value)
        }
    }

    func testServeIsScrapedByPrometheus() async throws {
        let s = try TestServers.get()
        let config = try CheckCommandTests.writeConfig(mixedConfig(s).replacingOccurrences(
            of: "    expect: { status: 200 }\n  - name: tls", with: "    every: 1s\n    timeout: 1s\n    expect: { status: 200 }\n  - name: tls"))
        let database = CheckCommandTests.temporaryPath("history.sqlite")
        let tsdb = CheckCommandTests.temporaryPath("tsdb")
        let promConfig = CheckCommandTests.temporaryPath("prometheus.yml")
        defer {
            for path in [config, promConfig] { unlink(path) }
            CheckCommandTests.removeDatabase(database)
            try? FileManager.default.removeItem(atPath: tsdb)
        }
        let serve = try ServerProcess(CheckCommandTests.binary, [
            "serve", "--config", config, "--listen", "127.0.0.1:0", "--history", database,
        ])
        let port = try XCTUnwrap(serve.announcedPort(), serve.stderr)
        let base = "http://127.0.0.1:\(port)"

        let (unknownStatus, unknownBody) = try await get("\(base)/probe?target=nosuch")
        XCTAssertEqual(unknownStatus, 404)
        XCTAssertTrue(unknownBody.contains("configured checks only"), unknownBody)
        let (urlStatus, _) = try await get("\(base)/probe?target=\(s.http("/small.txt").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        XCTAssertEqual(urlStatus, 404, "a URL is not a configured check")
        let (missingStatus, _) = try await get("\(base)/probe")
        XCTAssertEqual(missingStatus, 400)
        let (probeStatus, probeBody) = try await get("\(base)/probe?target=down")
        XCTAssertEqual(probeStatus, 200)
        XCTAssertTrue(probeBody.contains("probe_http_status_code{check=\"down\"} 503"), probeBody)
        XCTAssertFalse(probeBody.contains("check=\"small\""), "/probe answers for its target only")

        let (metricsStatus, metrics) = try await get("\(base)/metrics")
        XCTAssertEqual(metricsStatus, 200)
        XCTAssertNil(try promtoolProblems(metrics))
        XCTAssertTrue(metrics.contains("probe_success{check=\"down\"} 0"), metrics)

        let (prometheus, promPort) = try startPrometheus(scraping: [port], config: promConfig, storage: tsdb)

        // Ask Prometheus for the scraped metric until it has it (bounded: 60 s).
        let query = "probe_http_status_code%7Bcheck%3D%22small%22%7D"
        var answer = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let (status, body) = try? await get("http://127.0.0.1:\(promPort)/api/v1/query?query=\(query)"),
               status == 200, body.contains("\"result\":[{") {
                answer = body
                break
            }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        XCTAssertTrue(answer.contains("\"job\":\"wirelens\""), "Prometheus answered: \(answer); log: \(prometheus.stderr.suffix(2000))")
        XCTAssertTrue(answer.contains("\"200\"]"), "the scraped status is 200: \(answer)")

        XCTAssertNotNil(prometheus.stop(), "Prometheus stops on SIGTERM")
        XCTAssertEqual(serve.stop(), 0, "serve stops cleanly on SIGTERM")
        XCTAssertTrue(serve.stderr.contains("stopped"), serve.stderr)
        let history = try CheckHistory(path: database)
        XCTAssertGreaterThanOrEqual(try history.entries(check: "small", since: 0).count, 2, "every: 1s ran more than once")
    }

    /// Two `serve` instances split one configuration (`--shard 1/2` at vantage east, `2/2` at west) and Prometheus
    /// scrapes both. The assertion, consistent with the issue: with shards, every check appears exactly once across
    /// the two instances, at the vantage of the shard its name hashes to (FNV-1a 64 mod 2, computed here by Python),
    /// so `probe_success` holds exactly the expected (check, vantage) pairs and no check twice. And
    /// `histogram_quantile(0.9, …)` over a check's phase histogram (processing: the server's 150 ms delay) and its
    /// total-time histogram lies in the bucket holding the p90 that `wirelens history` computes from the same runs.
    func testTwoVantagesSplitOneConfigThroughPrometheus() async throws {
        let s = try TestServers.get()
        let names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "slow"]
        var yaml = "defaults: { timeout: 1s, buckets: [50ms, 100ms, 300ms, 1s] }\nchecks:\n"
        for name in names where name != "slow" {
            yaml += "  - name: \(name)\n    url: \(s.http("/small.txt"))\n    every: 1s\n"
        }
        yaml += "  - name: slow\n    url: \(s.target("/delay/150"))\n    every: 1s\n"
        let config = try CheckCommandTests.writeConfig(yaml)
        let databases = ["east", "west"].map { CheckCommandTests.temporaryPath("\($0).sqlite") }
        let tsdb = CheckCommandTests.temporaryPath("tsdb")
        let promConfig = CheckCommandTests.temporaryPath("prometheus.yml")
        defer {
            for path in [config, promConfig] { unlink(path) }
            for database in databases { CheckCommandTests.removeDatabase(database) }
            try? FileManager.default.removeItem(atPath: tsdb)
        }
        // The oracle: FNV-1a 64 of each name mod 2 (shard 1/2 holds the names at 0).
        let python = try run("/usr/bin/python3", ["-c", """
            import sys
            def fnv(s):
                h = 14695981039346656037
                for b in s.encode():
                    h = ((h ^ b) * 1099511628211) % 2**64
                return h
            for n in sys.argv[1:]:
                print(n, "east" if fnv(n) % 2 == 0 else "west")
            """] + names)
        let expected = Dictionary(uniqueKeysWithValues: python.stdout.split(separator: "\n").map { line in
            let fields = line.split(separator: " ")
            return (String(fields[0]), String(fields[1]))
        })
        XCTAssertEqual(Set(expected.values), ["east", "west"], "both shards hold checks: \(expected)")

        let instances = try zip(["east", "west"], databases).enumerated().map { index, pair in
            try ServerProcess(CheckCommandTests.binary, [
                "serve", "--config", config, "--listen", "127.0.0.1:0", "--history", pair.1,
                "--vantage", pair.0, "--shard", "\(index + 1)/2",
            ])
        }
        let ports = try instances.map { try XCTUnwrap($0.announcedPort(), $0.stderr) }
        let (prometheus, promPort) = try startPrometheus(scraping: ports, config: promConfig, storage: tsdb)

        // Until Prometheus has every check and five runs of the slow one (bounded: 45 s).
        var successes: [(labels: [String: String], value: Double)] = []
        var slowRuns = 0.0
        let deadline = Date().addingTimeInterval(45)
        while Date() < deadline {
            successes = await query(promPort, "probe_success") ?? []
            slowRuns = await query(promPort, "wirelens_check_phase_duration_seconds_count{check=\"slow\",phase=\"processing\"}")?
                .first?.value ?? 0
            if successes.count >= names.count && slowRuns >= 5 { break }
            try await Task.sleep(nanoseconds: 500_000_000)
        }
        let pairs = successes.map { "\($0.labels["check"] ?? "?")@\($0.labels["vantage"] ?? "none")" }
        XCTAssertEqual(pairs.count, names.count, "every check exactly once across the instances: \(pairs); "
                           + "log: \(prometheus.stderr.suffix(1500))")
        XCTAssertEqual(Set(pairs), Set(expected.map { "\($0.key)@\($0.value)" }))
        XCTAssertGreaterThanOrEqual(slowRuns, 5)

        let quantiles = [
            ("wait", "histogram_quantile(0.9, wirelens_check_phase_duration_seconds_bucket{check=\"slow\",phase=\"processing\"})"),
            ("total", "histogram_quantile(0.9, wirelens_check_duration_seconds_bucket{check=\"slow\"})"),
        ]
        var answers: [String: Double] = [:]
        for (phase, expression) in quantiles {
            answers[phase] = await query(promPort, expression)?.first?.value
        }
        XCTAssertNotNil(prometheus.stop(), "Prometheus stops on SIGTERM")
        for instance in instances { XCTAssertEqual(instance.stop(), 0, instance.stderr) }

        // The history's own p90 of the same runs (all of them), by `wirelens history`.
        let slowDatabase = databases[expected["slow"] == "east" ? 0 : 1]
        let history = try run(CheckCommandTests.binary, ["history", "slow", "--since", "10m", "--history", slowDatabase])
        XCTAssertEqual(history.status, 0, history.stderr)
        let bounds = [0, 0.05, 0.1, 0.3, 1, Double.infinity]
        for (phase, _) in quantiles {
            let row = history.stdout.split(separator: "\n").first { $0.split(separator: " ").first.map(String.init) == phase }
            let p90 = try XCTUnwrap(row.flatMap { Double($0.split(separator: " ")[2]) }, history.stdout) / 1000
            let quantile = try XCTUnwrap(answers[phase], "Prometheus answered \(phase)'s quantile")
            let upper = try XCTUnwrap(bounds.firstIndex { p90 <= $0 })
            XCTAssertTrue(bounds[upper - 1] < quantile && quantile <= bounds[upper],
                          "\(phase): histogram_quantile \(quantile) s, history p90 \(p90) s in (\(bounds[upper - 1]), \(bounds[upper])]")
        }

        // The history rows carry their instance's vantage (read by Python's sqlite3).
        for (database, vantage) in zip(databases, ["east", "west"]) {
            let rows = try run("/usr/bin/python3", ["-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(" ".join(sorted("%s@%s" % r for r in db.execute('select distinct n.name, r.vantage from check_result r join check_name n on n.id = r.checkId'))))
                """, database])
            let stored = Set(rows.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
            XCTAssertEqual(stored, Set(expected.filter { $0.value == vantage }.map { "\($0.key)@\(vantage)" }), rows.stderr)
        }
    }
}
