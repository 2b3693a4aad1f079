/// A token bucket in bytes that may go into debt: take what was moved, then wait until the debt is repaid.
///
/// Pure arithmetic on a caller-given clock (nanoseconds), so it is tested without sockets or sleeps.
package struct TokenBucket: Sendable, Equatable {
    /// The refill rate in bytes per second.
    package let rate: Int64
    /// The most tokens the bucket holds: the largest burst after an idle period.
    package let burst: Int64
    private var tokens: Double
    private var stamp: UInt64

    /// A full bucket at time `now`.
    package init(rate: Int64, burst: Int64, now: UInt64) {
        self.rate = max(1, rate)
        self.burst = max(1, burst)
        tokens = Double(self.burst)
        stamp = now
    }

    /// Refills for the time since the last call.
    private mutating func refill(now: UInt64) {
        guard now > stamp else { return }
        tokens = min(Double(burst), tokens + Double(now - stamp) * Double(rate) / 1e9)
        stamp = now
    }

    /// Takes `bytes` tokens (the bucket may go negative).
    package mutating func take(_ bytes: Int, now: UInt64) {
        refill(now: now)
        tokens -= Double(bytes)
    }

    /// Nanoseconds to wait from `now` until the bucket is out of debt (0 when it is not in debt).
    package mutating func delay(now: UInt64) -> Int64 {
        refill(now: now)
        guard tokens < 0 else { return 0 }
        return Int64((-tokens * 1e9 / Double(rate)).rounded(.up))
    }

    /// A chunk size suited to pacing at `rate`: about 1/50 s of transfer, between 1 KiB and 64 KiB.
    package static func chunkSize(rate: Int64?) -> Int {
        guard let rate else { return 64 * 1024 }
        return Int(min(64 * 1024, max(1024, rate / 50)))
    }
}
