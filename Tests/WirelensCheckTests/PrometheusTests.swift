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

        let promPort = try LoopbackSocket.listener().port  // free again once the listener is released
        try """
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
            scrape_configs:
              - job_name: wirelens
                static_configs:
                  - targets: ["127.0.0.1:\(port)"]
            """.write(toFile: promConfig, atomically: true, encoding: .utf8)
        let prometheus = try ServerProcess("/usr/bin/prometheus", [
            "--config.file=\(promConfig)", "--storage.tsdb.path=\(tsdb)", "--web.listen-address=127.0.0.1:\(promPort)",
        ])

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
}
