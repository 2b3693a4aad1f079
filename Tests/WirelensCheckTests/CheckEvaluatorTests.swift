import WirelensCheck
import WirelensCore
import XCTest

/// The pure evaluation of assertions over hand-built records: measured values, limits, and what counts when a
/// phase did not happen.
final class CheckEvaluatorTests: XCTestCase {
    private let start: Int64 = 1_800_000_000_000_000

    /// A record of one transaction with the given phases (µs), laid out from `start`.
    private func record(status: Int? = 200, error: TransferError? = nil, phases: Phases, reused: Bool = false,
                        bodyBytes: Int64 = 0, retries: Int = 0) -> TaskRecord {
        var timeline = Timeline(fetchStart: start)
        if phases.wait != nil {
            timeline.responseStart = start + [phases.queue, phases.dns, phases.connect, phases.tls, phases.send, phases.wait]
                .compactMap { $0 }.reduce(0, +)
        }
        var tx = TransactionMetrics(kind: .initial, url: "http://h/", method: "PUT", timeline: timeline, phases: phases,
                                    reusedConnection: reused, proxyConnection: false, curlTimers: CurlTimers())
        tx.requestBodyBytes = bodyBytes
        tx.statusCode = status
        return TaskRecord(index: 0, url: "http://h/", method: "PUT", startedAt: start, endedAt: start + phases.total,
                          redirectCount: 0, retries: retries, statusCode: status, error: error, transactions: [tx])
    }

    private func evaluate(_ expectation: Expectation, _ record: TaskRecord, extras: CheckEvaluator.Extras? = nil)
        -> AssertionResult {
        CheckEvaluator.evaluate(expectation, record: record, extras: extras ?? .init(now: start))
    }

    func testPhaseLimits() {
        let r = record(phases: Phases(queue: 100, dns: 2_000, connect: 3_000, send: 500_000, wait: 400_000,
                                      receive: 1_000, total: 906_100))
        XCTAssertEqual(evaluate(.maxPhase(.connect, 300_000), r),
                       AssertionResult(name: "connect", passed: true, measured: "3.0ms", limit: "max 300ms"))
        XCTAssertEqual(evaluate(.maxPhase(.ttfb, 800_000), r),
                       AssertionResult(name: "ttfb", passed: false, measured: "905ms", limit: "max 800ms"))
        XCTAssertTrue(evaluate(.maxPhase(.total, 906_100), r).passed, "the limit itself passes")
        XCTAssertFalse(evaluate(.maxPhase(.total, 906_099), r).passed)
        XCTAssertEqual(evaluate(.maxPhase(.tls, 1), r).measured, "did not happen")
        XCTAssertTrue(evaluate(.maxPhase(.tls, 1), r).passed)
    }

    func testThroughputReuseRetriesStatus() {
        let r = record(status: 201, phases: Phases(send: 1_000_000, wait: 10, total: 1_000_010), reused: true,
                       bodyBytes: 2_000_000, retries: 2)
        XCTAssertEqual(evaluate(.minUploadThroughput(1_000_000), r),
                       AssertionResult(name: "upload_throughput", passed: true, measured: "2.00 MB/s", limit: "min 1.00 MB/s"))
        XCTAssertFalse(evaluate(.minUploadThroughput(3_000_000), r).passed)
        XCTAssertEqual(evaluate(.minDownloadThroughput(1), r).measured, "no download measured")
        XCTAssertTrue(evaluate(.reuseRequired, r).passed)
        XCTAssertEqual(evaluate(.maxRetries(1), r), AssertionResult(name: "retries", passed: false, measured: "2", limit: "max 1"))
        XCTAssertTrue(evaluate(.status([200, 201]), r).passed)
        XCTAssertEqual(evaluate(.status([200]), r).limit, "200")
    }

    func testNoResponse() {
        let error = TransferError(errorClass: .connect, curlCode: 7, message: "Connection refused")
        let r = record(status: nil, error: error, phases: Phases(total: 500))
        XCTAssertEqual(evaluate(.status([200]), r).measured, "no response (connect: Connection refused)")
        XCTAssertFalse(evaluate(.maxPhase(.ttfb, 10_000_000), r).passed)
        XCTAssertFalse(evaluate(.maxPhase(.connect, 10_000_000), r).passed, "a failed task never passes a phase limit")
        XCTAssertEqual(evaluate(.succeeded, r).measured, "connect: Connection refused")

        let unavailable = record(status: 503, error: TransferError(errorClass: .http, message: "HTTP 503"),
                                 phases: Phases(connect: 100, send: 10, wait: 10, total: 120))
        XCTAssertTrue(evaluate(.maxPhase(.tls, 1), unavailable).passed, "an error status is still a response")
        XCTAssertEqual(evaluate(.maxPhase(.tls, 1), unavailable).measured, "did not happen")
    }

    /// A task that ended on a redirect it refused to follow fails `status:` with the refusal as the measured value,
    /// whatever codes were asked; a 3xx asked for and not followed (no error) still passes.
    func testRefusedRedirectIsTheReason() {
        let refusal = TransferError(errorClass: .protocol, message: RedirectPolicy.Refusal.linkLocal("169.254.169.254").description)
        let refused = record(status: 302, error: refusal, phases: Phases(wait: 10, total: 100))
        for codes in [[200], [302], [200, 302]] {
            let result = evaluate(.status(codes), refused)
            XCTAssertFalse(result.passed, "\(codes)")
            XCTAssertTrue(result.measured.hasPrefix("302, not followed: protocol: refused to follow a redirect to 169.254.169.254"),
                          result.measured)
        }
        XCTAssertTrue(evaluate(.succeeded, refused).measured.hasPrefix("protocol: refused to follow a redirect"))
        XCTAssertTrue(evaluate(.status([302]), record(status: 302, phases: Phases(wait: 10, total: 100))).passed)
    }

    func testBodyAndCertificate() {
        let r = record(phases: Phases(wait: 10, total: 10))
        XCTAssertTrue(evaluate(.bodyContains("ok"), r, extras: .init(body: "all ok", now: start)).passed)
        XCTAssertEqual(evaluate(.bodyContains("ok"), r, extras: .init(body: "nope", now: start)).measured, "not found")
        let day: Int64 = 86_400_000_000
        let soon = CheckEvaluator.Extras(certificateExpiry: start + 10 * day + day / 2, now: start)
        XCTAssertEqual(evaluate(.certificateDays(14), r, extras: soon),
                       AssertionResult(name: "certificate", passed: false, measured: "10.5 days left",
                                       limit: "valid for at least 14 days"))
        XCTAssertTrue(evaluate(.certificateDays(10), r, extras: soon).passed)
        let unknown = CheckEvaluator.Extras(certificateProblem: "no certificate: not https", now: start)
        XCTAssertEqual(evaluate(.certificateDays(1), r, extras: unknown).measured, "no certificate: not https")
    }
}
