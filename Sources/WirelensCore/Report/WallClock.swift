/// Formats wall-clock instants, held as microseconds since the Unix epoch, as RFC 3339 text.
public enum WallClock {
    /// Formats `micros` since 1970-01-01T00:00:00Z as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds).
    public static func iso8601(micros: Int64) -> String {
        let f = fields(micros: micros)
        guard f.fourDigitYear else { return slowISO8601(f) }
        // Reports hold hundreds of thousands of timestamps: write the 27 bytes directly.
        return String(unsafeUninitializedCapacity: 27) { write(f, into: $0) }
    }

    /// Appends the text of `iso8601(micros:)` to a byte buffer, without making a String.
    public static func appendISO8601(micros: Int64, to bytes: inout [UInt8]) {
        let f = fields(micros: micros)
        guard f.fourDigitYear else {
            bytes.append(contentsOf: slowISO8601(f).utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 27) { buffer in
            let count = write(f, into: buffer)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The calendar fields of an instant (UTC).
    private struct Fields {
        var year, month, day, secondOfDay, fraction: Int64
        /// True for years 0...9999, which the fixed 27-byte form can hold.
        var fourDigitYear: Bool { (0...9999).contains(year) }
    }

    private static func fields(micros: Int64) -> Fields {
        let seconds = floorDiv(micros, 1_000_000)
        let days = floorDiv(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        return Fields(year: year, month: month, day: day, secondOfDay: seconds - days * 86_400,
                      fraction: micros - seconds * 1_000_000)
    }

    /// The same text for years outside 0...9999, where the year does not have four digits.
    private static func slowISO8601(_ f: Fields) -> String {
        "\(pad(f.year, 4))-\(pad(f.month, 2))-\(pad(f.day, 2))T"
            + "\(pad(f.secondOfDay / 3600, 2)):\(pad(f.secondOfDay / 60 % 60, 2)):\(pad(f.secondOfDay % 60, 2))"
            + ".\(pad(f.fraction, 6))Z"
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS.ffffffZ` into a buffer of at least 27 bytes; returns 27.
    private static func write(_ f: Fields, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let (year, month, day, secondOfDay, fraction) = (f.year, f.month, f.day, f.secondOfDay, f.fraction)
        func put(_ value: Int64, _ width: Int, at start: Int) {
            var v = value
            for i in stride(from: start + width - 1, through: start, by: -1) {
                buffer[i] = UInt8(48 + v % 10)
                v /= 10
            }
        }
        put(year, 4, at: 0); buffer[4] = UInt8(ascii: "-")
        put(month, 2, at: 5); buffer[7] = UInt8(ascii: "-")
        put(day, 2, at: 8); buffer[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, 2, at: 11); buffer[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, 2, at: 14); buffer[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, 2, at: 17); buffer[19] = UInt8(ascii: ".")
        put(fraction, 6, at: 20); buffer[26] = UInt8(ascii: "Z")
        return 27
    }

    /// Parses the format `iso8601(micros:)` writes back to microseconds since the epoch.
    public static func parseISO8601(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        guard chars.count == 27, chars[4] == UInt8(ascii: "-"), chars[10] == UInt8(ascii: "T"),
              chars[26] == UInt8(ascii: "Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for c in chars[from..<(from + count)] {
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            return value
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2),
              let mi = number(14, 2), let s = number(17, 2), let f = number(20, 6) else { return nil }
        let days = days(fromCivil: y, mo, d)
        return ((days * 86_400 + h * 3600 + mi * 60 + s) * 1_000_000) + f
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Howard Hinnant's civil-from-days algorithm (proleptic Gregorian calendar).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
