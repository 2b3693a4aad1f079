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
        let lower = name.lowercased()
        if exactNames.contains(lower) { return true }
        if nameFragments.contains(where: { lower.contains($0) }) { return true }
        // "sig" only as a word's end (sig, api_sig, x-hmacsig): as a plain fragment it would also mask
        // harmless names such as X-Amz-SignedHeaders.
        return lower.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0.hasSuffix("sig") }
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
