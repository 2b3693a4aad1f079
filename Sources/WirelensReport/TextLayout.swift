/// Column layout helpers for the text report: padding, word wrapping and making foreign text safe for a terminal.
///
/// Widths count Characters; every character the report writes itself (`µ`, `—`, `→`, box and block
/// characters) takes one terminal column.
enum TextLayout {
    /// The width the text report is laid out for.
    static let lineWidth = 80

    /// `text` followed by spaces up to `width` characters.
    static func padRight(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// `text` preceded by spaces up to `width` characters.
    static func padLeft(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// Replaces control characters (escape sequences included) in text that came from a server,
    /// a URL or libcurl, so it cannot move the cursor or change colours.
    static func sanitize(_ text: String) -> String {
        // Printable ASCII, the usual text, holds no control character: returned as it is, not rebuilt scalar by
        // scalar (the text report's exchange lines sanitize every target).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? "?" : scalar
        }))
    }

    /// The first `width` characters of `text` (all of it when it is no longer).
    static func truncated(_ text: String, to width: Int) -> String {
        // A character takes at least one byte of UTF-8: a text of at most `width` bytes needs no counting.
        text.utf8.count <= width ? text : String(text.prefix(width))
    }

    /// Words of `text` filled into lines of at most `width` characters; the first line starts with
    /// `firstPrefix`, the others with `restPrefix`. A word longer than a line gets a line of its own.
    static func wrap(_ text: String, width: Int = lineWidth, firstPrefix: String, restPrefix: String) -> [String] {
        fill(text.split(separator: " ").map(String.init), separator: " ", width: width,
             firstPrefix: firstPrefix, restPrefix: restPrefix)
    }

    /// Items joined by `separator` and filled into lines like `wrap`, never breaking inside an item.
    static func fill(_ items: [String], separator: String, width: Int = lineWidth, firstPrefix: String,
                     restPrefix: String) -> [String] {
        var lines: [String] = []
        var line = firstPrefix
        var lineHasItem = false
        for (index, item) in items.enumerated() {
            let isLast = index == items.count - 1
            // Separators such as ", " keep their comma on the line they end.
            let piece = isLast ? item : item + separator.trimmingTrailingSpaces
            let gap = lineHasItem ? String(separator.trailingSpaces) : ""
            if lineHasItem, line.count + gap.count + piece.count > width {
                lines.append(line)
                line = restPrefix + piece
            } else {
                line += gap + piece
            }
            lineHasItem = true
        }
        lines.append(line)
        return lines
    }
}

private extension String {
    /// The string without its trailing spaces (", " becomes ",").
    var trimmingTrailingSpaces: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }

    /// The trailing spaces of the string (", " gives " ").
    var trailingSpaces: Substring {
        self[(lastIndex { $0 != " " }.map { index(after: $0) } ?? startIndex)...]
    }
}
