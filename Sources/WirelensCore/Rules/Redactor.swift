import Foundation

/// Removes secrets from headers, URLs and messages before they reach a report or a log.
package enum Redactor {
    /// What a redacted value is replaced with.
    package static let mask = "[REDACTED]"

    /// Names that are secret as a whole (`code`: an OAuth authorization code).
    private static let exactNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie", "code"]
    /// Names that are secret when they contain one of these.
    private static let nameFragments = ["token", "signature", "secret", "key", "password", "passwd", "pwd", "auth",
                                        "session", "credential"]

    /// True when a header or query parameter of this name carries a secret.
    package static func isSensitive(name: String) -> Bool {
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
    package static func header(_ field: HeaderField) -> HeaderField {
        if isSensitive(name: field.name) { return HeaderField(name: field.name, value: mask) }
        let value = headerValue(name: field.name, field.value)
        return value == field.value ? field : HeaderField(name: field.name, value: value)
    }

    /// The headers with sensitive values masked and the URLs in their values redacted.
    package static func headers(_ fields: [HeaderField]) -> [HeaderField] {
        fields.map(header)
    }

    /// A header value of a header whose name is not sensitive, with the URLs it carries redacted.
    private static func headerValue(name: String, _ value: String) -> String {
        if equalsIgnoringCase(name, "location") || equalsIgnoringCase(name, "content-location")
            || equalsIgnoringCase(name, "referer") {
            return url(value)
        }
        if equalsIgnoringCase(name, "link") { return urls(in: angleTargets(value)) }
        if equalsIgnoringCase(name, "refresh") { return urls(in: refreshTarget(value)) }
        return urls(in: value)
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
        var closing = ""
        if let first = target.first, first == "\"" || first == "'" {
            quote = String(first)
            target = target.dropFirst()
            if target.last == first {
                closing = quote
                target = target.dropLast()
            }
        }
        return value[..<key.upperBound] + quote + url(String(target)) + closing
    }

    /// The URL with its user info (user name and password: either can be a token) and the values of sensitive
    /// query and fragment parameters masked. Works on absolute URLs, `//host` and relative references, and a
    /// proxy given as `user:password@host:port`.
    package static func url(_ text: String) -> String {
        let bytes = text.utf8
        // Nothing to mask without user info, a query or a fragment (most URLs of a large run). Looked for in the
        // string's own storage: every record's URL passes here, and the generic view costs tens of instructions a byte.
        let marks = { (byte: UInt8) in byte == question || byte == hash || byte == atSign }
        guard bytes.withContiguousStorageIfAvailable({ $0.contains(where: marks) }) ?? bytes.contains(where: marks) else {
            return text
        }
        let fragmentMark = bytes.firstIndex(of: hash)
        let end = fragmentMark ?? bytes.endIndex
        let queryMark = bytes[..<end].firstIndex(of: question)
        var result = redactUserInfo(text[..<(queryMark ?? end)])
        if let queryMark {
            result += "?"
            appendParameters(text[bytes.index(after: queryMark)..<end], to: &result)
        }
        if let fragmentMark {
            // A fragment can carry OAuth tokens (#access_token=…): its parameters are masked like the query's.
            result += "#"
            appendParameters(text[bytes.index(after: fragmentMark)...], to: &result)
        }
        return result
    }

    private static let question = UInt8(ascii: "?"), hash = UInt8(ascii: "#"), atSign = UInt8(ascii: "@"),
                       ampersand = UInt8(ascii: "&"), equals = UInt8(ascii: "="), slash = UInt8(ascii: "/"),
                       colon = UInt8(ascii: ":"), percent = UInt8(ascii: "%")

    /// Appends `name=value&…` with the values of sensitive names masked, and the URLs other values hold redacted.
    private static func appendParameters(_ text: Substring, to result: inout String) {
        var rest = text
        while true {
            let end = rest.utf8.firstIndex(of: ampersand) ?? rest.endIndex
            let part = rest[..<end]
            if let eq = part.utf8.firstIndex(of: equals) {
                let name = part[..<eq]
                let value = part[part.utf8.index(after: eq)...]
                if isSensitiveParameter(name) {
                    result += name + "=" + mask
                } else if schemeSeparator(in: value) != nil {
                    result += name + "=" + url(String(value))
                } else {
                    result += part
                }
            } else {
                result += part
            }
            guard end < rest.endIndex else { return }
            result += "&"
            rest = rest[rest.utf8.index(after: end)...]
        }
    }

    /// `isSensitive(name:)` of a parameter name as written in a URL (percent-encoding decoded first).
    private static func isSensitiveParameter(_ name: Substring) -> Bool {
        if name.utf8.contains(percent) {
            let text = String(name)
            return isSensitive(name: text.removingPercentEncoding ?? text)
        }
        var name = name
        return name.withUTF8 { isSensitive(asciiName: $0) } ?? isSensitive(lowercased: name.lowercased())
    }

    /// Where `://` starts in the text (its colon), if anywhere.
    private static func schemeSeparator(in text: Substring) -> String.Index? {
        let bytes = text.utf8
        var from = bytes.startIndex
        while let mark = bytes[from...].firstIndex(of: colon) {
            let first = bytes.index(after: mark)
            guard first < bytes.endIndex, bytes[first] == slash else {
                from = first
                continue
            }
            let second = bytes.index(after: first)
            if second < bytes.endIndex, bytes[second] == slash { return mark }
            from = first
        }
        return nil
    }

    /// Masks the user info of `scheme://userinfo@host`, `//userinfo@host` and `userinfo@host:port`.
    private static func redactUserInfo(_ text: Substring) -> String {
        let bytes = text.utf8
        let authorityStart: String.Index
        if let separator = schemeSeparator(in: text) {
            authorityStart = bytes.index(separator, offsetBy: 3)
        } else if bytes.starts(with: [slash, slash]) {
            authorityStart = bytes.index(bytes.startIndex, offsetBy: 2)
        } else {
            authorityStart = bytes.startIndex  // a proxy may be given without a scheme: user:password@host:port
        }
        let authorityEnd = bytes[authorityStart...].firstIndex(of: slash) ?? bytes.endIndex
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: atSign), at > authorityStart else {
            return String(text)
        }
        return text[..<authorityStart] + mask + text[at...]
    }

    /// The text with every absolute URL in it (`scheme://…`, up to white space, a quote or an angle bracket)
    /// redacted.
    package static func urls(in text: String) -> String {
        var rest = Substring(text)
        guard var separator = schemeSeparator(in: rest) else { return text }
        var result = ""
        while true {
            let bytes = rest.utf8
            var start = separator
            while start > bytes.startIndex, isSchemeByte(bytes[bytes.index(before: start)]) {
                start = bytes.index(before: start)
            }
            let end = bytes[separator...].firstIndex(where: endsURL) ?? bytes.endIndex
            result += rest[..<start]
            result += url(String(rest[start..<end]))
            rest = rest[end...]
            guard let next = schemeSeparator(in: rest) else { return result + rest }
            separator = next
        }
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    private static func endsURL(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
            || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "`")
    }

    /// Masks URLs and `Name: value` secrets that appear inside free text, such as libcurl's error messages.
    package static func message(_ text: String) -> String {
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
        for word in urls(in: line).split(separator: " ", omittingEmptySubsequences: false) {
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
