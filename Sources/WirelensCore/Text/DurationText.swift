import Foundation

/// Parses durations written like `500ms`, `15s`, `2m`, `1.5s`, `90d` or a bare number of seconds.
package enum DurationText {
    /// Returns the duration in microseconds, or nil if the text is not a non-negative duration.
    package static func parseMicroseconds(_ text: String) -> Int64? {
        guard let (number, unit) = QuantityText.split(text) else { return nil }
        let unitMicros: [String: Double] = ["": 1e6, "s": 1e6, "ms": 1e3, "us": 1, "µs": 1, "m": 60e6, "min": 60e6, "h": 3600e6, "d": 86400e6]
        guard let multiplier = unitMicros[unit] else { return nil }
        let value = number * multiplier
        guard value < 9.0e18 else { return nil }
        return Int64(value.rounded())
    }

    /// Formats a length of time as `--since` takes it: `48h`, `90m`, `45s`, or `format(micros:)` when finer.
    package static func span(micros: Int64) -> String {
        for (unit, size) in [("h", Int64(3_600_000_000)), ("m", 60_000_000), ("s", 1_000_000)]
        where micros >= size && micros % size == 0 {
            return "\(micros / size)\(unit)"
        }
        return format(micros: micros)
    }

    /// Formats microseconds for a person: `850µs`, `12.3ms`, `4.20s`.
    package static func format(micros: Int64) -> String {
        if micros < 1000 { return "\(micros)µs" }
        if micros < 1_000_000 { return "\(Format.fixed(Double(micros) / 1000, digits: micros < 100_000 ? 1 : 0))ms" }
        return "\(Format.fixed(Double(micros) / 1e6, digits: 2))s"
    }
}
