import WirelensCore

/// A small JSON value for the target's answers, rendered with members in the order given.
package indirect enum JSONValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case null
    case array([JSONValue])
    case object([Member])

    /// One member of an object.
    package struct Member: Sendable, Equatable {
        package var name: String
        package var value: JSONValue

        package init(_ name: String, _ value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The value of an `Encodable`, object members in the order its `encode(to:)` writes them; throws for a `Bool`
    /// or a floating-point member (no case holds them).
    package init<T: Encodable>(encoding value: T) throws {
        let node = JSONNode()
        try JSONValueEncoder.put(value, into: node, codingPath: [])
        self = node.value
    }

    /// A string, or null when nil.
    package static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// The compact JSON text.
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let value): Self.quote(value, into: &out)
        case .int(let value): out += String(value)
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                Self.quote(member.name, into: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Appends `text` as a JSON string literal (`JSONStringLiteral`: RFC 8259 escapes, control characters as
    /// \u00xx).
    package static func quote(_ text: String, into out: inout String) {
        out += JSONStringLiteral.quoted(text)
    }
}
