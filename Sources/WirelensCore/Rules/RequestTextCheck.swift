/// Refuses request text that would end a header line early and start another: CR, LF or NUL in a header's name or
/// value, or in a method.
///
/// libcurl sends such text as it is, so `X-Note: a\r\nCookie: b` would add a header the user never wrote (header
/// injection); a diagnostics tool run from configuration files refuses it instead. The CLI's `-H`, `-X` and a check's
/// `headers:`, `method:` and `user_agent:` all go through here.
package enum RequestTextCheck {
    /// What is wrong with a header, naming it (never showing its value, which may be a secret); nil when it is fine.
    package static func problem(name: String, value: String) -> String? {
        if let bad = forbidden(in: name) {
            return "the header name '\(oneLine(name))' contains \(bad); a header name is one line without CR, LF or NUL"
        }
        if let bad = forbidden(in: value) {
            return "the value of header '\(name)' contains \(bad); a header value is one line without CR, LF or NUL"
        }
        return nil
    }

    /// What is wrong with a request method, or nil when it is fine.
    package static func problem(method: String) -> String? {
        guard let bad = forbidden(in: method) else { return nil }
        return "the method '\(oneLine(method))' contains \(bad); a method is one word without CR, LF or NUL"
    }

    /// The first forbidden character's name, or nil when there is none.
    static func forbidden(in text: String) -> String? {
        for byte in text.utf8 {
            switch byte {
            case 0x0d: return "a carriage return (CR)"
            case 0x0a: return "a line feed (LF)"
            case 0x00: return "a NUL byte"
            default: continue
            }
        }
        return nil
    }

    /// The text on one line: CR, LF and NUL written as \r, \n and \0 (for error messages that quote input).
    package static func oneLine(_ text: String) -> String {
        text.replacingScalars(["\r": "\\r", "\n": "\\n", "\0": "\\0"])
    }
}
