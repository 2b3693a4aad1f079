import Foundation

/// Decides whether and when a failed transaction is tried again: exponential backoff with jitter, Retry-After honoured.
public struct RetryPolicy: Sendable, Codable, Equatable {
    /// How many times a task may be retried after its first attempt.
    public var maxRetries: Int
    /// The first backoff delay in microseconds; it doubles with each retry.
    public var baseDelay: Int64
    /// The largest backoff delay in microseconds, and the largest Retry-After honoured (`--retry-max-wait`): a
    /// server that asks for a longer wait gets this one.
    public var maxDelay: Int64
    /// No retry starts once this many microseconds passed since the task began (`--retry-max-time`, as curl's:
    /// the attempt then started may last longer); nil: no such limit. Not in reports (older ones lack it).
    public var maxTime: Int64?

    private enum CodingKeys: String, CodingKey {
        case maxRetries, baseDelay = "baseDelayUs", maxDelay = "maxDelayUs"
    }

    public init(maxRetries: Int = 0, baseDelay: Int64 = 250_000, maxDelay: Int64 = 30_000_000, maxTime: Int64? = nil) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTime = maxTime
    }

    /// True when a retry may still start `elapsed` µs after the task began (`maxTime`).
    public func allowsRetry(elapsed: Int64) -> Bool {
        guard let maxTime else { return true }
        return elapsed < maxTime
    }

    /// The HTTP statuses worth another attempt, for probe retries and segment retries alike: curl's `--retry`
    /// set (408 Request Timeout, 429 Too Many Requests, 500, 502, 503, 504). 501 Not Implemented and the other 5xx
    /// say what the server is, not a passing state. README "Retryable statuses" lists the same.
    public static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// True when an HTTP answer with `status` is worth another attempt (`retryableStatuses`).
    public static func isRetryable(status: Int) -> Bool { retryableStatuses.contains(status) }

    /// True when the outcome is worth another try: a transient transport failure or a retryable status.
    public static func isRetryable(error: ErrorClass?, status: Int?) -> Bool {
        if let error, error != .http { return error.isTransient }
        guard let status else { return false }
        return isRetryable(status: status)
    }

    /// The delay in microseconds before retry number `retry` (1-based), or nil when no retry is due.
    ///
    /// - Parameters:
    ///   - retryAfter: the server's Retry-After in microseconds, which replaces the backoff when present (capped at
    ///     `maxDelay`).
    ///   - unit: a number in [0, 1) for the jitter; the backoff is `d/2 + unit * d/2` with `d = base * 2^(retry-1)`.
    public func delay(retry: Int, error: ErrorClass?, status: Int?, retryAfter: Int64?, unit: Double) -> Int64? {
        guard retry <= maxRetries, Self.isRetryable(error: error, status: status) else { return nil }
        if let retryAfter { return min(max(0, retryAfter), maxDelay) }
        return backoff(retry: retry, unit: unit)
    }

    /// The backoff in microseconds before retry number `retry` (1-based), whatever failed: `d/2 + unit * d/2`
    /// with `d = base * 2^(retry-1)`, at most `maxDelay`; `unit` is a number in [0, 1) for the jitter.
    public func backoff(retry: Int, unit: Double) -> Int64 {
        let exponent = min(max(retry - 1, 0), 30)
        let full = min(maxDelay, baseDelay.multipliedReportingOverflow(by: Int64(1) << exponent).overflow
                       ? maxDelay : baseDelay << exponent)
        let half = full / 2
        return half + Int64(Double(full - half) * min(max(unit, 0), 0.999_999))
    }

    /// Parses a Retry-After value (delay-seconds or an IMF-fixdate) into microseconds from `nowMicros`.
    ///
    /// Any size is taken (`Retry-After: 99999999999999` gives `Int64.max`, not an overflow); `delay` caps it.
    public static func parseRetryAfter(_ value: String, nowMicros: Int64) -> Int64? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int64(trimmed) else { return .max }
            let micros = seconds.multipliedReportingOverflow(by: 1_000_000)
            return micros.overflow ? .max : micros.partialValue
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        let micros = date.timeIntervalSince1970 * 1e6 - Double(nowMicros)
        return micros >= 9.2e18 ? .max : max(0, Int64(micros))
    }
}
