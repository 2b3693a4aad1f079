import Foundation
import WirelensCheck
import WirelensCore
import WirelensTestSupport
import XCTest

/// Assertions pass and fail against the built-in target server's delays and statuses, nginx's bodies, uploads and
/// TLS, and the target's flaky statuses (fail_first), run through the real probe engine.
final class CheckRunnerTests: XCTestCase {
    private func config(_ yaml: String) throws -> CheckConfig {
        try CheckConfig.parse(yaml, file: "test.yaml", environment: [:])
    }

    private func assertion(_ result: CheckResult, _ name: String, file: StaticString = #filePath,
                           line: UInt = #line) throws -> AssertionResult {
        try XCTUnwrap(result.assertions.first { $0.name == name }, "no \(name) in \(result.assertions)", file: file, line: line)
    }

    func testAssertionsPassAndFail() async throws {
        let s = try TestServers.get()
        let t = s.target("")
        let checks = try config("""
            checks:
              - name: ok
                url: \(s.http("/small.txt"))
                expect:
                  status: 200
                  body_contains: hello wirelens
                  ttfb: { max: 5s }
                  tls: { max: 1ms }
              - name: wrong-status
                url: \(t)/status/503
                expect: { status: [200, 201] }
              - name: right-status
                url: \(t)/status/201
                expect: { status: [200, 201], ttfb: { max: 5s } }
              - name: slow
                url: \(t)/delay/300
                expect: { ttfb: { max: 100ms }, total: { max: 10s } }
              - name: missing-text
                url: \(s.http("/small.txt"))
                expect: { body_contains: goodbye }
              - name: upload
                url: \(s.http("/upload/check-\(UUID().uuidString).bin"))
                upload: { size: 1MiB }
                expect:
                  status: [201, 204]
                  upload_throughput: { min: 1KB/s }
              - name: upload-too-slow
                url: \(s.http("/upload/check-\(UUID().uuidString).bin"))
                upload: { size: 256KiB }
                expect: { upload_throughput: { min: 1000GB/s } }
              - name: flaky
                url: \(s.target("/status/200?fail_first=1&retry_after=0&key=\(UUID().uuidString)"))
                retries: 2
                expect: { status: 200, retries: { max: 0 } }
              - name: refused
                url: http://127.0.0.1:1/
                expect: { connect: { max: 1s }, ttfb: { max: 1s } }
            """)
        let results = await CheckRunner().runRound(checks.checks)
        XCTAssertEqual(results.map(\.name), checks.checks.map(\.name))
        let byName = Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })

        let ok = try XCTUnwrap(byName["ok"])
        XCTAssertTrue(ok.passed, "\(ok.assertions)")
        XCTAssertEqual(try assertion(ok, "tls").measured, "did not happen")

        let wrong = try XCTUnwrap(byName["wrong-status"])
        XCTAssertFalse(wrong.passed)
        XCTAssertEqual(try assertion(wrong, "status"), AssertionResult(name: "status", passed: false, measured: "503",
                                                                         limit: "one of 200, 201"))
        XCTAssertTrue(try XCTUnwrap(byName["right-status"]).passed)
        let slow = try XCTUnwrap(byName["slow"])
        XCTAssertFalse(slow.passed)
        let ttfb = try assertion(slow, "ttfb")
        XCTAssertFalse(ttfb.passed)
        XCTAssertEqual(ttfb.limit, "max 100ms")
        let measured = try XCTUnwrap(slow.record.flatMap { CheckPhase.ttfb.measure($0) })
        XCTAssertGreaterThanOrEqual(measured, 300_000, "the server slept 300 ms")
        XCTAssertTrue(try assertion(slow, "total").passed)

        let missing = try XCTUnwrap(byName["missing-text"])
        XCTAssertEqual(try assertion(missing, "body_contains").measured, "not found")
        XCTAssertFalse(missing.passed)

        let upload = try XCTUnwrap(byName["upload"])
        XCTAssertTrue(upload.passed, "\(upload.assertions)")
        XCTAssertEqual(upload.record?.transactions.last?.requestBodyBytes, 1_048_576)
        let tooSlow = try XCTUnwrap(byName["upload-too-slow"])
        XCTAssertFalse(try assertion(tooSlow, "upload_throughput").passed)
        XCTAssertTrue(try assertion(tooSlow, "upload_throughput").measured.hasSuffix("/s"))

        let flaky = try XCTUnwrap(byName["flaky"])
        XCTAssertTrue(try assertion(flaky, "status").passed, "the retry got the 200")
        XCTAssertEqual(try assertion(flaky, "retries"), AssertionResult(name: "retries", passed: false, measured: "1",
                                                                         limit: "max 0"))
        let refused = try XCTUnwrap(byName["refused"])
        XCTAssertFalse(refused.passed)
        XCTAssertFalse(try assertion(refused, "success").passed)
        XCTAssertFalse(try assertion(refused, "ttfb").passed, "no response is no time to first byte")
    }

    func testCertificateDays() async throws {
        let s = try TestServers.get()
        let checks = try config("""
            checks:
              - name: cert-ok
                url: \(s.https("/small.txt"))
                cacert: \(s.certPath)
                expect: { status: 200, certificate: { min_days: 1 } }
              - name: cert-short
                url: \(s.https("/small.txt"))
                cacert: \(s.certPath)
                expect: { certificate: { min_days: 3650 } }
              - name: cert-plain-http
                url: \(s.http("/small.txt"))
                expect: { certificate: { min_days: 1 } }
            """)
        let results = await CheckRunner().runRound(checks.checks)
        XCTAssertTrue(results[0].passed, "\(results[0].assertions)")
        let expiry = try XCTUnwrap(results[0].certificateExpiry)
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        XCTAssertGreaterThan(expiry, now, "the test certificate has not expired")
        // Compare with openssl's own reading of the certificate file.
        let openssl = try ProcessRunner.run("/usr/bin/openssl", ["x509", "-noout", "-enddate", "-in", s.certPath])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let text = openssl.stdout.replacingOccurrences(of: "notAfter=", with: "").trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let date = try XCTUnwrap(formatter.date(from: text), text)
        XCTAssertEqual(expiry, Int64(date.timeIntervalSince1970) * 1_000_000)

        XCTAssertFalse(results[1].passed)
        XCTAssertTrue(try assertion(results[1], "certificate").measured.hasSuffix("days left"))
        XCTAssertFalse(results[2].passed)
        XCTAssertTrue(try assertion(results[2], "certificate").measured.contains("not https"))
    }

    func testReuseNeedsKeepAliveAcrossRounds() async throws {
        let s = try TestServers.get()
        let checks = try config("""
            checks:
              - name: kept
                url: \(s.http("/small.txt"))
                keep_alive: true
                expect: { reuse: true }
              - name: fresh
                url: \(s.http("/small.txt"))
                expect: { reuse: true }
            """)
        let runner = CheckRunner()
        let first = await runner.runRound(checks.checks)
        let second = await runner.runRound(checks.checks)
        XCTAssertFalse(first[0].passed, "the first round opens the connection")
        XCTAssertEqual(first[0].assertions.last?.measured, "new connection")
        XCTAssertTrue(second[0].passed, "the second round reuses it: \(second[0].assertions)")
        XCTAssertFalse(second[1].passed, "without keep_alive every round opens a fresh connection")
    }
}
