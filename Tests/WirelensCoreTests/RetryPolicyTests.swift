import XCTest
import WirelensCore

final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(maxRetries: 5, baseDelay: 200_000, maxDelay: 5_000_000)

    func testRetryableOutcomes() {
        XCTAssertTrue(RetryPolicy.isRetryable(error: nil, status: 429))
        XCTAssertTrue(RetryPolicy.isRetryable(error: nil, status: 503))
        XCTAssertTrue(RetryPolicy.isRetryable(error: nil, status: 500))
        XCTAssertTrue(RetryPolicy.isRetryable(error: nil, status: 408), "curl --retry retries a 408")
        XCTAssertTrue(RetryPolicy.isRetryable(error: nil, status: 504))
        XCTAssertTrue(RetryPolicy.isRetryable(error: .http, status: 503), "an http error class defers to the status")
        XCTAssertTrue(RetryPolicy.isRetryable(error: .connect, status: nil))
        XCTAssertTrue(RetryPolicy.isRetryable(error: .connectTimeout, status: nil))
        XCTAssertTrue(RetryPolicy.isRetryable(error: .idleTimeout, status: nil))
        XCTAssertTrue(RetryPolicy.isRetryable(error: .network, status: nil))
    }

    func testNonRetryableOutcomes() {
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 404))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .http, status: 404))
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 400))
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 200))
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 600))
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 501), "Not Implemented is no passing state")
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 505))
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: 599), "curl --retry does not retry a 599")
        XCTAssertFalse(RetryPolicy.isRetryable(error: nil, status: nil))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .tls, status: nil))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .dns, status: nil))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .file, status: nil))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .cancelled, status: nil))
        XCTAssertFalse(RetryPolicy.isRetryable(error: .tls, status: 503), "a transport failure decides, not a stale status")
    }

    func testBackoffBoundsForUnitZeroAndNearlyOne() throws {
        for retry in 1...4 {
            let d = policy.baseDelay << (retry - 1)
            let low = try XCTUnwrap(policy.delay(retry: retry, error: nil, status: 503, retryAfter: nil, unit: 0))
            let high = try XCTUnwrap(policy.delay(retry: retry, error: nil, status: 503, retryAfter: nil,
                                                  unit: 0.999_999_9))
            XCTAssertEqual(low, d / 2, "retry \(retry)")
            XCTAssertLessThanOrEqual(high, d, "retry \(retry)")
            XCTAssertGreaterThanOrEqual(high, d - d / 1000, "retry \(retry): unit ≈ 1 gives ≈ d")
        }
    }

    func testJitterStaysWithinHalfToFullDelay() throws {
        let d: Int64 = 400_000 // retry 2
        var last: Int64 = -1
        for step in 0...100 {
            let unit = Double(step) / 100
            let value = try XCTUnwrap(policy.delay(retry: 2, error: .connect, status: nil, retryAfter: nil, unit: unit))
            XCTAssertGreaterThanOrEqual(value, d / 2)
            XCTAssertLessThanOrEqual(value, d)
            XCTAssertGreaterThanOrEqual(value, last, "the delay grows with the jitter unit")
            last = value
        }
        // Out-of-range units are clamped, not extrapolated.
        XCTAssertEqual(policy.delay(retry: 2, error: .connect, status: nil, retryAfter: nil, unit: -3), d / 2)
        let above = try XCTUnwrap(policy.delay(retry: 2, error: .connect, status: nil, retryAfter: nil, unit: 7))
        XCTAssertLessThanOrEqual(above, d)
    }

    func testBackoffDoublesWithEachRetry() throws {
        let delays = try (1...5).map {
            try XCTUnwrap(policy.delay(retry: $0, error: nil, status: 429, retryAfter: nil, unit: 0.5))
        }
        XCTAssertEqual(delays, [150_000, 300_000, 600_000, 1_200_000, 2_400_000])
    }

    func testBackoffIsCappedByMaxDelay() throws {
        let long = RetryPolicy(maxRetries: 100, baseDelay: 250_000, maxDelay: 1_000_000)
        for retry in [3, 4, 10, 31, 63, 64, 100] {
            let value = try XCTUnwrap(long.delay(retry: retry, error: nil, status: 502, retryAfter: nil, unit: 0.999))
            XCTAssertLessThanOrEqual(value, 1_000_000, "retry \(retry)")
            XCTAssertGreaterThanOrEqual(value, 500_000, "retry \(retry)")
        }
        // A base large enough to overflow when shifted still ends at the cap.
        let huge = RetryPolicy(maxRetries: 40, baseDelay: Int64.max / 4, maxDelay: 60_000_000)
        XCTAssertEqual(huge.delay(retry: 40, error: .network, status: nil, retryAfter: nil, unit: 0), 30_000_000)
    }

    func testRetryAfterWinsOverBackoffAndIsCapped() {
        XCTAssertEqual(policy.delay(retry: 1, error: nil, status: 503, retryAfter: 3_000_000, unit: 0.9), 3_000_000)
        XCTAssertEqual(policy.delay(retry: 4, error: nil, status: 429, retryAfter: 0, unit: 0.9), 0)
        XCTAssertEqual(policy.delay(retry: 1, error: nil, status: 503, retryAfter: 120_000_000, unit: 0), 5_000_000)
        XCTAssertEqual(policy.delay(retry: 1, error: nil, status: 503, retryAfter: -5, unit: 0), 0)
        XCTAssertNil(policy.delay(retry: 1, error: nil, status: 404, retryAfter: 1_000_000, unit: 0),
                     "Retry-After does not make a 404 retryable")
    }

    func testNoRetryBeyondMaxRetries() {
        XCTAssertNotNil(policy.delay(retry: 5, error: nil, status: 503, retryAfter: nil, unit: 0))
        XCTAssertNil(policy.delay(retry: 6, error: nil, status: 503, retryAfter: nil, unit: 0))
        XCTAssertNil(policy.delay(retry: 6, error: nil, status: 503, retryAfter: 1_000, unit: 0))
        XCTAssertNil(RetryPolicy().delay(retry: 1, error: .connect, status: nil, retryAfter: nil, unit: 0),
                     "the default policy does not retry")
    }

    func testNonRetryableOutcomeHasNoDelay() {
        XCTAssertNil(policy.delay(retry: 1, error: .tls, status: nil, retryAfter: nil, unit: 0))
        XCTAssertNil(policy.delay(retry: 1, error: .dns, status: nil, retryAfter: nil, unit: 0))
        XCTAssertNil(policy.delay(retry: 1, error: nil, status: 404, retryAfter: nil, unit: 0))
    }

    func testParseRetryAfterSeconds() {
        XCTAssertEqual(RetryPolicy.parseRetryAfter("120", nowMicros: 0), 120_000_000)
        XCTAssertEqual(RetryPolicy.parseRetryAfter(" 5 ", nowMicros: 999), 5_000_000)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("0", nowMicros: 0), 0)
        XCTAssertNil(RetryPolicy.parseRetryAfter("-5", nowMicros: 0))
        XCTAssertNil(RetryPolicy.parseRetryAfter("soon", nowMicros: 0))
        XCTAssertNil(RetryPolicy.parseRetryAfter("", nowMicros: 0))
    }

    /// Any size of Retry-After parses (Int64 overflow trapped before), and the wait is capped at maxDelay.
    func testHugeRetryAfterSaturatesAndIsCapped() {
        XCTAssertEqual(RetryPolicy.parseRetryAfter("99999999", nowMicros: 0), 99_999_999_000_000)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("99999999999999", nowMicros: 0), .max, "beyond Int64 µs")
        XCTAssertEqual(RetryPolicy.parseRetryAfter("99999999999999999999999", nowMicros: 0), .max, "beyond Int64 s")
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Fri, 31 Dec 9999 23:59:59 GMT", nowMicros: 0).map { $0 > 0 }, true)
        XCTAssertNil(RetryPolicy.parseRetryAfter("+5", nowMicros: 0), "delay-seconds are digits only")
        let policy = RetryPolicy(maxRetries: 1, baseDelay: 250_000, maxDelay: 1_000_000)
        XCTAssertEqual(policy.delay(retry: 1, error: nil, status: 503, retryAfter: .max, unit: 0.5), 1_000_000)
        XCTAssertEqual(RetryPolicy(maxRetries: 1).delay(retry: 1, error: nil, status: 503, retryAfter: 99_999_999_000_000,
                                                         unit: 0),
                       30_000_000, "the default cap")
    }

    func testParseRetryAfterHTTPDate() {
        // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480 s after the epoch.
        let date: Int64 = 1_445_412_480_000_000
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", nowMicros: date - 30_000_000),
                       30_000_000)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", nowMicros: date - 1_500_000),
                       1_500_000)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", nowMicros: date + 10_000_000), 0,
                       "a date in the past means now")
        XCTAssertNil(RetryPolicy.parseRetryAfter("Wed, 21 Foo 2015 07:28:00 GMT", nowMicros: date))
    }

    func testCodingUsesMicrosecondKeys() throws {
        let data = try JSONEncoder().encode(policy)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["maxRetries"] as? Int, 5)
        XCTAssertEqual(object["baseDelayUs"] as? Int, 200_000)
        XCTAssertEqual(object["maxDelayUs"] as? Int, 5_000_000)
        XCTAssertEqual(try JSONDecoder().decode(RetryPolicy.self, from: data), policy)
    }
}
