import Foundation

/// Removes secrets from headers, URLs and messages before they reach a report or a log.
public enum Redactor {
    /// What a redacted value is replaced with.
    public static let mask = "[REDACTED]"

    private static let exactNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    private static let nameFragments = ["token", "signature", "secret", "key", "password", "passwd", "auth",
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

    /// The header with its value masked when its name is sensitive.
    public static func header(_ field: HeaderField) -> HeaderField {
        isSensitive(name: field.name) ? HeaderField(name: field.name, value: mask) : field
    }

    /// The headers with sensitive values masked.
    public static func headers(_ fields: [HeaderField]) -> [HeaderField] {
        fields.map(header)
    }

    /// The URL with a password in its user info and the values of sensitive query parameters masked.
    public static func url(_ text: String) -> String {
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

    /// `name=value&…` with the values of sensitive names masked.
    private static func parameters(_ text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            guard let eq = part.firstIndex(of: "=") else { return String(part) }
            let name = String(part[..<eq])
            let decoded = name.removingPercentEncoding ?? name
            return isSensitive(name: decoded) ? "\(name)=\(mask)" : String(part)
        }.joined(separator: "&")
    }

    /// Masks the password of `scheme://user:password@host`.
    private static func redactUserInfo(_ text: String) -> String {
        // A proxy may be given without a scheme: user:password@host:port.
        let authorityStart = text.range(of: "://")?.upperBound ?? text.startIndex
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        let authority = text[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        let userInfo = authority[..<at]
        let user = userInfo.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let masked = userInfo.contains(":") ? "\(user):\(mask)" : user
        return String(text[..<authorityStart]) + masked + String(authority[at...]) + String(text[authorityEnd...])
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
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            if word.count > 1, word.last == ":", !word.contains("://"), isSensitive(name: String(word.dropLast())) {
                words.append(String(word))
                words.append(mask)
                break
            }
            words.append(word.contains("://") ? url(String(word)) : String(word))
        }
        return words.joined(separator: " ")
    }
}
