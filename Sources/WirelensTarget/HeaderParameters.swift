/// Parses header values of the form `value; name=token; name="quoted \"string\""` (Content-Type,
/// Content-Disposition), as RFC 9110 §5.6.6 and RFC 7578 write them.
package struct HeaderParameters: Equatable, Sendable {
    /// The value before the first `;`, lowercased and trimmed.
    package var value: String
    /// The parameters by lowercased name, values unquoted.
    package var parameters: [String: String]

    /// Parses `text`; a malformed parameter list yields nil.
    package static func parse(_ text: String) -> HeaderParameters? {
        var scalars = Substring(text).unicodeScalars[...]
        func skipSpace() { while let c = scalars.first, c == " " || c == "\t" { scalars.removeFirst() } }
        func token() -> String {
            var out = String.UnicodeScalarView()
            while let c = scalars.first, c != ";", c != "=", c != " ", c != "\t" {
                out.append(c)
                scalars.removeFirst()
            }
            return String(out)
        }
        skipSpace()
        var head = String.UnicodeScalarView()
        while let c = scalars.first, c != ";" {
            head.append(c)
            scalars.removeFirst()
        }
        var result = HeaderParameters(value: String(head).trimmingSpace().lowercased(), parameters: [:])
        while let c = scalars.first, c == ";" {
            scalars.removeFirst()
            skipSpace()
            if scalars.isEmpty { break }
            let name = token().lowercased()
            skipSpace()
            guard !name.isEmpty, scalars.first == "=" else { return nil }
            scalars.removeFirst()
            skipSpace()
            var value = String.UnicodeScalarView()
            if scalars.first == "\"" {
                scalars.removeFirst()
                var closed = false
                while let c = scalars.popFirst() {
                    if c == "\\", let escaped = scalars.popFirst() {
                        value.append(escaped)
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        value.append(c)
                    }
                }
                guard closed else { return nil }
            } else {
                value = token().unicodeScalars
            }
            result.parameters[name] = String(value)
            skipSpace()
            guard scalars.isEmpty || scalars.first == ";" else { return nil }
        }
        return result
    }
}
