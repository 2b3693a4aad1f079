/// Pairs one reading of the wall clock with one of the monotonic clock, to turn monotonic instants into wall-clock time.
public struct ClockAnchor: Sendable, Equatable {
    /// Wall-clock microseconds since the Unix epoch at the moment of the reading.
    public var wallMicros: Int64
    /// Monotonic nanoseconds at the same moment.
    public var monotonicNanos: Int64

    public init(wallMicros: Int64, monotonicNanos: Int64) {
        self.wallMicros = wallMicros
        self.monotonicNanos = monotonicNanos
    }

    /// The wall-clock microseconds of a monotonic instant.
    public func wallMicros(ofMonotonic nanos: Int64) -> Int64 {
        wallMicros + (nanos - monotonicNanos) / 1000
    }
}
