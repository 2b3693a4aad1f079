#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads the clocks the engine stamps events with.
package enum MonotonicClock {
    /// Monotonic nanoseconds (CLOCK_MONOTONIC, the clock libcurl 7.88 times with).
    @inline(__always)
    package static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Wall-clock microseconds since the Unix epoch.
    package static func wallMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// A fresh pairing of the wall clock with the monotonic clock.
    package static func anchor() -> ClockAnchor {
        let mono = now()
        let wall = wallMicros()
        return ClockAnchor(wallMicros: wall, monotonicNanos: mono)
    }
}
