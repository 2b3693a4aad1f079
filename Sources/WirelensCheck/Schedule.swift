/// When scheduled checks run next: the interval with random jitter, so that many checkers do not fire in step.
public struct Schedule: Sendable, Equatable {
    /// The interval between rounds in µs.
    public var interval: Int64
    /// The jitter as a fraction of the interval: each delay is `interval × (1 ± jitter)`.
    public var jitter: Double

    public init(interval: Int64, jitter: Double = 0.1) {
        self.interval = interval
        self.jitter = min(max(jitter, 0), 0.5)
    }

    /// The delay before the next round in µs, for a uniform `random` in [0, 1).
    public func delay(random: Double) -> Int64 {
        let factor = 1 + jitter * (2 * random - 1)
        return max(1, Int64((Double(interval) * factor).rounded()))
    }

    /// The delay before the next round, with the system's random numbers.
    public func nextDelay() -> Int64 {
        delay(random: Double.random(in: 0..<1))
    }
}
