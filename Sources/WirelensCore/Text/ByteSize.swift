import Foundation

/// Parses and formats byte quantities such as `10MiB`, `512KB` or `1048576`.
package enum ByteSize {
    /// Parses a size with an optional unit: B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024).
    ///
    /// Returns nil for anything that is not a whole, non-negative quantity.
    package static func parse(_ text: String) -> Int64? {
        guard let (number, unit) = QuantityText.split(text) else { return nil }
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "k": 1024, "kib": 1024, "kb": 1000,
            "m": 1_048_576, "mib": 1_048_576, "mb": 1_000_000,
            "g": 1_073_741_824, "gib": 1_073_741_824, "gb": 1_000_000_000,
            "tib": 1_099_511_627_776, "tb": 1_000_000_000_000,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let value = number * multiplier
        // Binary floating point makes whole decimal quantities inexact (4.1 * 1e6 == 4099999.9999999995):
        // a difference of a few ulps from the nearest integer is rounding error, not a fraction of a byte.
        let whole = value.rounded()
        guard abs(value - whole) <= 4 * whole.ulp, whole < 9.0e18 else { return nil }
        return Int64(whole)
    }

    /// Parses a rate such as `720KB/s`, `1MiB/s` or `2048` (bytes per second; the `/s` is optional).
    ///
    /// Returns nil for anything that is not a whole, non-negative quantity of bytes per second.
    package static func parseRate(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        return parse(lower.hasSuffix("/s") ? String(trimmed.dropLast(2)) : trimmed)
    }

    /// Formats a byte count with a binary unit, e.g. `1.5 MiB`.
    package static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : "\(Format.fixed(value, digits: value < 10 ? 2 : 1)) \(units[unit])"
    }

    /// Formats a rate in bytes per second with decimal units (as curl and browsers show speeds), e.g. `715 KB/s`.
    package static func formatRate(_ bytesPerSecond: Double) -> String {
        let units = ["B/s", "KB/s", "MB/s", "GB/s"]
        var value = bytesPerSecond
        var unit = 0
        while abs(value) >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return "\(Format.fixed(value, digits: value < 10 ? 2 : (value < 100 ? 1 : 0))) \(units[unit])"
    }
}
