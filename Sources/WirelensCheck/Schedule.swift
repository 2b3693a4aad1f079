/// When checks run: `check --every`'s rounds with random jitter, and `serve`'s fixed ticks per check.
///
/// Under `serve` each check runs at the ticks `offset + k × interval` (wall-clock µs since the epoch, k an integer),
/// its offset within the interval taken from its name (`offset(name:)`, FNV-1a 64 of the name modulo the
/// interval): checks spread evenly over their interval instead of firing together, and a restarted instance keeps
/// each check's place. A run still going at a tick skips that tick (`skippedTicks`): runs never queue up.
package struct Schedule: Sendable, Equatable {
    /// The interval between rounds in µs.
    package var interval: Int64
    /// The jitter as a fraction of the interval: each delay is `interval × (1 ± jitter)`.
    package var jitter: Double

    package init(interval: Int64, jitter: Double = 0.1) {
        self.interval = max(1, interval)
        self.jitter = min(max(jitter, 0), 0.5)
    }

    /// The delay before the next round in µs, for a uniform `random` in [0, 1).
    package func delay(random: Double) -> Int64 {
        let factor = 1 + jitter * (2 * random - 1)
        return max(1, Int64((Double(interval) * factor).rounded()))
    }

    /// The delay before the next round, with the system's random numbers.
    package func nextDelay() -> Int64 {
        delay(random: Double.random(in: 0..<1))
    }

    /// The place of the check named `name` within the interval, µs in [0, interval).
    package func offset(name: String) -> Int64 {
        Int64(NameHash.fnv1a64(name) % UInt64(interval))
    }

    /// The first tick at or after `now` (wall-clock µs) for a check at `offset`.
    package func tick(atOrAfter now: Int64, offset: Int64) -> Int64 {
        let since = now - offset
        // k = ⌈since / interval⌉ (Swift's division truncates toward zero).
        let k = since >= 0 ? (since + interval - 1) / interval : -((-since) / interval)
        return offset + k * interval
    }

    /// The ticks a run missed: those after `tick` (the one it ran for) and before `next` (the first tick at or after
    /// its end).
    package func skippedTicks(tick: Int64, next: Int64) -> Int {
        max(0, Int((next - tick) / interval) - 1)
    }
}
