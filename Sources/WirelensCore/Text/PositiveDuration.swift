import Foundation

/// A length of time greater than zero, the one rule of every duration flag and configuration key: a number with a
/// unit (`500ms`, `15s`, `2m`, `1h`, `90d`) or a bare number of seconds (`DurationText.parseMicroseconds`).
package struct PositiveDuration: TextParsable, Equatable {
    package let micros: Int64

    package init(parsing text: String) throws(ValueRefusal) {
        if let micros = DurationText.parseMicroseconds(text) {
            guard micros > 0 else { throw ValueRefusal("'\(text)' must be greater than 0") }
            self.micros = micros
            return
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("-"), DurationText.parseMicroseconds(String(trimmed.dropFirst())) != nil {
            throw ValueRefusal("'\(text)' must be greater than 0")
        }
        throw ValueRefusal("'\(text)' is not a duration; write e.g. 500ms, 15s or 2m (a bare number is seconds)")
    }
}
