/// One line of libcurl's verbose text as `-v` prints it: curl's prefix (`*` for libcurl's own text, `>` for request
/// headers, `<` for response headers) and the line with its secrets masked (`Redactor`).
package enum VerboseLine {
    /// What kind of verbose text a line came in.
    package enum Kind: Sendable {
        /// libcurl's informational text.
        case text
        /// A request header block (the request line first).
        case headerOut
        /// A response header line (the status line first).
        case headerIn
    }

    /// The printed lines of one piece of verbose text: split at line ends (CRLF, LF), each prefixed and redacted.
    /// The request line's target is redacted as a URL; header values by their names; free text as messages.
    package static func lines(_ kind: Kind, _ text: String) -> [String] {
        // "\r\n" is one Character in Swift: every line end is a separator of its own.
        var pieces = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        if pieces.last == "" { pieces.removeLast() }
        return pieces.map { line in
            switch kind {
            case .text: "* " + informational(line)
            case .headerOut: "> " + header(line)
            case .headerIn: "< " + header(line)
            }
        }
    }

    /// A line of libcurl's own text redacted as a message, and the user name libcurl names when it sends URL
    /// credentials ("Server auth using Basic with user 'bob'"): user info is never printed.
    static func informational(_ line: String) -> String {
        if let field = bracketedHeader(line) { return field }
        if let cookie = cookieLine(line) { return cookie }
        let redacted = Redactor.message(line)
        guard redacted.contains("auth using"), let quote = redacted.range(of: " with user '") else { return redacted }
        return redacted[..<quote.upperBound] + Redactor.mask + "'"
    }

    /// The cookie engine's line about a cookie it stored ("Added cookie sid=\"v\" for domain …", "Replaced cookie …")
    /// with the value masked; nil for any other line.
    static func cookieLine(_ line: String) -> String? {
        guard line.hasPrefix("Added cookie ") || line.hasPrefix("Replaced cookie "),
              let open = line.range(of: "=\""), let close = line.range(of: "\" for domain ", range: open.upperBound..<line.endIndex)
        else { return nil }
        return Redactor.message(String(line[..<open.upperBound])) + Redactor.mask + Redactor.message(String(line[close.lowerBound...]))
    }

    /// An HTTP/2 request header as libcurl prints it in its text ("h2h3 [:path: /a?token=x]"; libcurl 8 writes
    /// "[HTTP/2] [1] [name: value]"), redacted as a header (`:path` as a URL); nil for any other line.
    static func bracketedHeader(_ line: String) -> String? {
        guard line.hasSuffix("]"), let open = line.lastIndex(of: "[") else { return nil }
        let inner = line[line.index(after: open)..<line.index(before: line.endIndex)]
        guard let colon = inner.range(of: ": ", options: [], range: inner.index(after: inner.startIndex)..<inner.endIndex)
        else { return nil }
        let name = String(inner[..<colon.lowerBound])
        let value = String(inner[colon.upperBound...])
        let redacted = name == ":path" ? Redactor.url(value) : Redactor.header(HeaderField(name: name, value: value)).value
        return Redactor.message(String(line[..<open])) + "[\(name): \(redacted)]"
    }

    /// A header block line redacted: `METHOD TARGET HTTP/x` with the target as a URL, `Name: value` by its name, a
    /// status line as it is.
    static func header(_ line: String) -> String {
        if line.isEmpty || line.hasPrefix("HTTP/") { return line }
        let words = line.split(separator: " ", omittingEmptySubsequences: false)
        if words.count == 3, words[2].hasPrefix("HTTP/"), !words[0].contains(":") {
            return "\(words[0]) \(Redactor.url(String(words[1]))) \(words[2])"
        }
        if let field = HeaderField.parse(line) {
            let redacted = Redactor.header(field)
            return "\(redacted.name): \(redacted.value)"
        }
        return Redactor.message(line)
    }
}
