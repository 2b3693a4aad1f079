import Foundation

/// What a `Range` request header asks of a resource of known length (RFC 9110 §14.1.2, single ranges only).
package enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header: serve the whole resource with 200 (absent, malformed, or several ranges,
    /// which a server may ignore).
    case whole
    /// A satisfiable range, inclusive bounds clamped to the resource: 206.
    case partial(first: Int64, last: Int64)
    /// A syntactically valid range that selects no byte of the resource: 416.
    case unsatisfiable

    /// Interprets `header` (the Range header's value, nil when absent) for a resource of `length` bytes.
    package static func parse(_ header: String?, length: Int64) -> ByteRangeRequest {
        guard let header else { return .whole }
        let text = header.trimmingCharacters(in: [" ", "\t"])
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst(6).trimmingCharacters(in: [" ", "\t"])
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let startText = spec[..<dash]
        let endText = spec[spec.index(after: dash)...]
        if startText.isEmpty {
            // Suffix range: the last n bytes.
            guard let suffix = digits(endText) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(first: max(0, length - suffix), last: length - 1)
        }
        guard let first = digits(startText) else { return .whole }
        var last = length - 1
        if !endText.isEmpty {
            guard let end = digits(endText) else { return .whole }
            guard end >= first else { return .whole }
            last = min(end, length - 1)
        }
        guard first < length else { return .unsatisfiable }
        return .partial(first: first, last: last)
    }

    /// A non-negative decimal integer made of ASCII digits only.
    static func digits<S: StringProtocol>(_ text: S) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }
}
