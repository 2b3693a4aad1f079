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

    /// A string, or null when nil.
    package static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// The compact JSON text, written by the one JSON writer (`StreamingJSONEncoder`).
    package var text: String { String(decoding: JSONValue.bytes(of: self), as: UTF8.self) }

    /// The compact JSON of any wire value (a `JSONValue`, a `WireAnswer`): members in the order its `encode(to:)`
    /// writes them, so the same value gives the same bytes on every run (Foundation's JSONEncoder orders keys by
    /// hash). `null` for a value JSON cannot hold (a NaN), which no wire type has.
    package static func bytes(of value: some Encodable) -> [UInt8] {
        (try? StreamingJSONEncoder(prettyPrinted: false).encode(value)) ?? Array("null".utf8)
    }

    /// Appends `text` as a JSON string literal (`JSONStringLiteral`: RFC 8259 escapes, control characters as
    /// \u00xx).
    package static func quote(_ text: String, into out: inout String) {
        out += JSONStringLiteral.quoted(text)
    }
}

extension JSONValue: Encodable {
    /// Writes the value as it is: strings, integers, null, arrays and objects in their order.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: MemberName.self)
            for member in members { try container.encode(member.value, forKey: MemberName(member.name)) }
        }
    }

    /// An object member's name as a coding key.
    private struct MemberName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
