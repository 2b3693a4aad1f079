/// Small, locale-independent number formatting used by reports and messages.
public enum Format {
    /// Formats a value with a fixed number of fraction digits, without Foundation's locale handling.
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf") }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let negative = value < 0 && scaled != 0
        let whole = Int64(scaled / scale)
        let fraction = Int64(scaled - Double(whole) * scale)
        var text = "\(negative ? "-" : "")\(whole)"
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: max(0, digits - fractionText.count)) + fractionText
        }
        return text
    }

    /// Rounds milliseconds to microsecond precision (three fraction digits) for JSON output.
    public static func millis(fromMicros micros: Int64) -> Double {
        Double(micros) / 1000
    }

    /// Milliseconds read back from JSON as whole microseconds, held within Int64 (a report written with a huge
    /// value, or edited by hand, must not trap).
    public static func micros(fromMillis millis: Double) -> Int64 {
        let micros = (millis * 1000).rounded()
        guard micros.isFinite else { return micros > 0 ? .max : .min }
        return micros >= 9.223_372_036_854_775e18 ? .max : micros <= -9.223_372_036_854_775e18 ? .min : Int64(micros)
    }
}
