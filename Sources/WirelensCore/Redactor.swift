import Foundation

/// Removes secrets from headers, URLs and messages before they reach a report or a log.
public enum Redactor {
    /// What a redacted value is replaced with.
    public static let mask = "[REDACTED]"

    /// Names that are secret as a whole (`code`: an OAuth authorization code).
    private static let exactNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "code"]
    /// Names that are secret when they contain one of these.
    private static let nameFragments = ["token", "signature", "secret", "key", "password", "passwd", "pwd", "auth",
                                        "session", "credential"]

    /// True when a header or query parameter of this name carries a secret.
    public static func isSensitive(name: String) -> Bool {
        var name = name
        return name.withUTF8 { isSensitive(asciiName: $0) } ?? isSensitive(lowercased: name.lowercased())
    }

    /// `isSensitive(name:)` of a name already lowercased (any Unicode).
    static func isSensitive(lowercased lower: String) -> Bool {
        if exactNames.contains(lower) { return true }
        if nameFragments.contains(where: { lower.contains($0) }) { return true }
        // "sig" only as a word's end (sig, api_sig, x-hmacsig): as a plain fragment it would also mask
        // harmless names such as X-Amz-SignedHeaders.
        return lower.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0.hasSuffix("sig") }
    }

    /// `isSensitive(name:)` for a name of ASCII bytes, without building strings (capture analysis asks it of
    /// every query parameter name); nil when the name is not ASCII (Unicode lowercasing then decides).
    static func isSensitive(asciiName bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard bytes.count <= 256, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { buffer -> Bool in
            for (i, b) in bytes.enumerated() { buffer[i] = b >= 65 && b <= 90 ? b | 0x20 : b }
            let lower = UnsafeBufferPointer(rebasing: buffer[..<bytes.count])
            if asciiExactNames.contains(where: { $0.elementsEqual(lower) }) { return true }
            if asciiFragments.contains(where: { contains(lower, $0) }) { return true }
            // A word (a run of letters and digits) ending in "sig".
            var i = 0
            while i < lower.count {
                while i < lower.count, !isWordByte(lower[i]) { i += 1 }
                let start = i
                while i < lower.count, isWordByte(lower[i]) { i += 1 }
                if i - start >= 3, lower[i - 3] == 0x73, lower[i - 2] == 0x69, lower[i - 1] == 0x67 { return true }
            }
            return false
        }
    }

    private static let asciiExactNames = exactNames.map { Array($0.utf8) }
    private static let asciiFragments = nameFragments.map { Array($0.utf8) }

    private static func isWordByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39)
    }

    private static func contains(_ text: UnsafeBufferPointer<UInt8>, _ fragment: [UInt8]) -> Bool {
        guard fragment.count <= text.count else { return false }
        for start in 0...(text.count - fragment.count)
        where text[start] == fragment[0] && text[start..<(start + fragment.count)].elementsEqual(fragment) {
            return true
        }
        return false
    }

    /// The header with its value masked when its name is sensitive, and the URLs its value carries redacted:
    /// the whole value of Location, Content-Location and Referer, the `<...>` targets of Link, the `url=` of
    /// Refresh, and any absolute URL inside any other value.
    public static func header(_ field: HeaderField) -> HeaderField {
        if isSensitive(name: field.name) { return HeaderField(name: field.name, value: mask) }
        let value = headerValue(name: field.name, field.value)
        return value == field.value ? field : HeaderField(name: field.name, value: value)
    }

    /// The headers with sensitive values masked and the URLs in their values redacted.
    public static func headers(_ fields: [HeaderField]) -> [HeaderField] {
        fields.map(header)
    }

    /// A header value of a header whose name is not sensitive, with the URLs it carries redacted.
    private static func headerValue(name: String, _ value: String) -> String {
        if equalsIgnoringCase(name, "location") || equalsIgnoringCase(name, "content-location")
            || equalsIgnoringCase(name, "referer") {
            return url(value)
        }
        if equalsIgnoringCase(name, "link") { return embeddedURLs(angleTargets(value)) }
        if equalsIgnoringCase(name, "refresh") { return embeddedURLs(refreshTarget(value)) }
        return embeddedURLs(value)
    }

    /// True when `name` is `lower` (ASCII lowercase) but for case.
    private static func equalsIgnoringCase(_ name: String, _ lower: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount)
        guard name.utf8.count == expected.count else { return false }
        return zip(name.utf8, expected).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0) == $1 }
    }

    /// Link's `<target>; rel=…, <target>…` with every target (absolute or relative) redacted as a URL.
    private static func angleTargets(_ value: String) -> String {
        var result = ""
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            result += rest[...open] + url(String(rest[rest.index(after: open)..<close])) + ">"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// Refresh's `N; url=target` (the target quoted or not, absolute or relative) with the target redacted.
    private static func refreshTarget(_ value: String) -> String {
        guard let key = value.range(of: "url=", options: .caseInsensitive) else { return value }
        var target = value[key.upperBound...]
        var quote = ""
        if let first = target.first, first == "\"" || first == "'" {
            quote = String(first)
            target = target.dropFirst()
            if target.last == first { target = target.dropLast() }
        }
        let closing = value[key.upperBound...].count > target.count + quote.count ? quote : ""
        return String(value[..<key.upperBound]) + quote + url(String(target)) + closing
    }

    /// The URL with its user info (user name and password: either can be a token) and the values of sensitive
    /// query and fragment parameters masked. Works on absolute URLs, `//host` and relative references, and a
    /// proxy given as `user:password@host:port`.
    public static func url(_ text: String) -> String {
        // Nothing to mask without user info, a query or a fragment (most URLs of a large run).
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "@") })
        else { return text }
        var rest = Substring(text)
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            // A fragment can carry OAuth tokens (#access_token=…): its parameters are masked like the query's.
            fragment = "#" + parameters(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var result = redactUserInfo(String(rest))
        if let query { result += "?" + parameters(query) }
        return result + fragment
    }

    /// `name=value&…` with the values of sensitive names masked, and the URLs other values hold redacted.
    private static func parameters(_ text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            guard let eq = part.firstIndex(of: "=") else { return String(part) }
            let name = String(part[..<eq])
            let decoded = name.removingPercentEncoding ?? name
            if isSensitive(name: decoded) { return "\(name)=\(mask)" }
            let value = part[part.index(after: eq)...]
            return value.contains("://") ? "\(name)=\(url(String(value)))" : String(part)
        }.joined(separator: "&")
    }

    /// Masks the user info of `scheme://userinfo@host`, `//userinfo@host` and `userinfo@host:port`.
    private static func redactUserInfo(_ text: String) -> String {
        // A proxy may be given without a scheme: user:password@host:port.
        let authorityStart = text.range(of: "://")?.upperBound
            ?? (text.hasPrefix("//") ? text.index(text.startIndex, offsetBy: 2) : text.startIndex)
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), at > authority.startIndex else { return text }
        return String(text[..<authorityStart]) + mask + String(authority[at...]) + String(text[authorityEnd...])
    }

    /// The text with every absolute URL in it (`scheme://…`, up to a space, a quote or an angle bracket) redacted.
    static func embeddedURLs(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            var start = separator.lowerBound
            while start > rest.startIndex, isSchemeCharacter(rest[rest.index(before: start)]) {
                start = rest.index(before: start)
            }
            let end = rest[separator.upperBound...].firstIndex(where: endsURL) ?? rest.endIndex
            result += rest[..<start] + url(String(rest[start..<end]))
            rest = rest[end...]
        }
        return result + rest
    }

    private static func isSchemeCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "+" || c == "-" || c == ".")
    }

    private static func endsURL(_ c: Character) -> Bool {
        c.isWhitespace || c == "<" || c == ">" || c == "\"" || c == "'" || c == "`"
    }

    /// Masks URLs and `Name: value` secrets that appear inside free text, such as libcurl's error messages.
    public static func message(_ text: String) -> String {
        var result = ""
        var line = ""
        for character in text {
            if character.isNewline {
                result += messageLine(line) + String(character)
                line = ""
            } else {
                line.append(character)
            }
        }
        return result + messageLine(line)
    }

    /// One line of `message(_:)`: URLs masked, and after a sensitive `Name:` the rest of the line.
    private static func messageLine(_ line: String) -> String {
        var words: [String] = []
        for word in embeddedURLs(line).split(separator: " ", omittingEmptySubsequences: false) {
            if word.count > 1, word.last == ":", !word.contains("://"), isSensitive(name: String(word.dropLast())) {
                words.append(String(word))
                words.append(mask)
                break
            }
            words.append(String(word))
        }
        return words.joined(separator: " ")
    }
}
