import Foundation

/// Parses durations written like `500ms`, `15s`, `2m`, `1.5s`, `90d` or a bare number of seconds.
public enum DurationText {
    /// Returns the duration in microseconds, or nil if the text is not a non-negative duration.
    public static func parseMicroseconds(_ text: String) -> Int64? {
        guard let (number, unit) = QuantityText.split(text) else { return nil }
        let unitMicros: [String: Double] = ["": 1e6, "s": 1e6, "ms": 1e3, "us": 1, "µs": 1, "m": 60e6, "min": 60e6, "h": 3600e6, "d": 86400e6]
        guard let multiplier = unitMicros[unit] else { return nil }
        let value = number * multiplier
        guard value < 9.0e18 else { return nil }
        return Int64(value.rounded())
    }

    /// Parses a duration that must be greater than zero, the one rule of every duration flag and config key:
    /// a number with a unit (`500ms`, `15s`, `2m`, `1h`, `90d`) or a bare number of seconds. Returns the microseconds,
    /// or the one-line reason the text was refused, which starts with the quoted text.
    public static func parsePositive(_ text: String) -> Result<Int64, Refusal> {
        if let micros = parseMicroseconds(text) {
            return micros > 0 ? .success(micros) : .failure(Refusal("'\(text)' must be greater than 0"))
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("-"), parseMicroseconds(String(trimmed.dropFirst())) != nil {
            return .failure(Refusal("'\(text)' must be greater than 0"))
        }
        return .failure(Refusal("'\(text)' is not a duration; write e.g. 500ms, 15s or 2m (a bare number is seconds)"))
    }

    /// Why a duration text was refused: one line, starting with the quoted text.
    public struct Refusal: Error, Sendable, Equatable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    /// Formats a length of time as `--since` takes it: `48h`, `90m`, `45s`, or `format(micros:)` when finer.
    public static func span(micros: Int64) -> String {
        for (unit, size) in [("h", Int64(3_600_000_000)), ("m", 60_000_000), ("s", 1_000_000)]
        where micros >= size && micros % size == 0 {
            return "\(micros / size)\(unit)"
        }
        return format(micros: micros)
    }

    /// Formats microseconds for a person: `850µs`, `12.3ms`, `4.20s`.
    public static func format(micros: Int64) -> String {
        if micros < 1000 { return "\(micros)µs" }
        if micros < 1_000_000 { return "\(Format.fixed(Double(micros) / 1000, digits: micros < 100_000 ? 1 : 0))ms" }
        return "\(Format.fixed(Double(micros) / 1e6, digits: 2))s"
    }
}
