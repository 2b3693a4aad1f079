import WirelensCore

/// Escaping and number helpers for the HTML report, which is written as XHTML so that an XML parser reads it.
enum HTMLText {
    /// `text` safe inside an element or a quoted attribute: & < > " ' escaped, control characters replaced.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // XML 1.0 allows no C0 control but tab, LF and CR.
                if scalar.value < 0x20, scalar != "\t", scalar != "\n", scalar != "\r" { out += "?" } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A coordinate with at most one fraction digit.
    static func px(_ value: Double) -> String {
        let text = Format.fixed(value, digits: 1)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// A step of 1, 2 or 5 times a power of ten giving at most `maxTicks` ticks over `range`.
    static func niceStep(range: Double, maxTicks: Int) -> Double {
        guard range > 0, range.isFinite else { return 1 }
        let raw = range / Double(max(1, maxTicks))
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        for factor in [1.0, 2.0, 5.0, 10.0] where power * factor >= raw { return power * factor }
        return power * 10
    }

    /// A tick label: whole numbers without fraction, others with up to two digits.
    static func tick(_ value: Double) -> String {
        if value.rounded() == value { return Format.fixed(value, digits: 0) }
        let text = Format.fixed(value, digits: abs(value) < 1 ? 2 : 1)
        return text
    }
}
