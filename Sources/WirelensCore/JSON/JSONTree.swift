/// A JSON value read from text, members in their order: how a value that writes its own bytes
/// (`CompactJSONWritable`) reaches an encoder other than the one JSON writer.
package indirect enum JSONTree: Encodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONTree])
    case object([(key: String, value: JSONTree)])

    /// Why text is not one JSON value: the offset where reading stopped.
    package struct Malformed: Error, Equatable {
        package var offset: Int
    }

    /// Reads one JSON value (whitespace allowed between tokens); throws `Malformed` for anything else.
    package init(parsing text: [UInt8]) throws(Malformed) {
        var reader = Reader(text: text)
        self = try reader.value()
        reader.skipSpace()
        guard reader.position == text.count else { throw Malformed(offset: reader.position) }
    }

    package static func == (a: JSONTree, b: JSONTree) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
        default: false
        }
    }

    package func encode(to encoder: Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .integer(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .number(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .string(let value):
            var c = encoder.singleValueContainer()
            try c.encode(value)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let members):
            var c = encoder.container(keyedBy: AnyCodingKey.self)
            for member in members { try c.encode(member.value, forKey: AnyCodingKey(stringValue: member.key)) }
        }
    }

    /// A cursor over the text.
    private struct Reader {
        let text: [UInt8]
        var position = 0

        mutating func skipSpace() {
            while position < text.count, [0x20, 0x0A, 0x0D, 0x09].contains(text[position]) { position += 1 }
        }

        mutating func value() throws(Malformed) -> JSONTree {
            skipSpace()
            guard position < text.count else { throw Malformed(offset: position) }
            switch text[position] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        mutating func literal(_ word: String) throws(Malformed) {
            let bytes = Array(word.utf8)
            guard position + bytes.count <= text.count, Array(text[position..<position + bytes.count]) == bytes else {
                throw Malformed(offset: position)
            }
            position += bytes.count
        }

        mutating func expect(_ byte: UInt8) throws(Malformed) {
            skipSpace()
            guard position < text.count, text[position] == byte else { throw Malformed(offset: position) }
            position += 1
        }

        /// True (and past it) when the next token is `byte`.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard position < text.count, text[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func object() throws(Malformed) -> JSONTree {
            try expect(UInt8(ascii: "{"))
            var members: [(key: String, value: JSONTree)] = []
            if take(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                skipSpace()
                let key = try string()
                try expect(UInt8(ascii: ":"))
                members.append((key, try value()))
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
            return .object(members)
        }

        mutating func array() throws(Malformed) -> JSONTree {
            try expect(UInt8(ascii: "["))
            var items: [JSONTree] = []
            if take(UInt8(ascii: "]")) { return .array(items) }
            repeat { items.append(try value()) } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
            return .array(items)
        }

        mutating func string() throws(Malformed) -> String {
            guard position < text.count, text[position] == UInt8(ascii: "\"") else { throw Malformed(offset: position) }
            position += 1
            var bytes: [UInt8] = []
            while position < text.count {
                let byte = text[position]
                position += 1
                if byte == UInt8(ascii: "\"") { return String(decoding: bytes, as: UTF8.self) }
                guard byte == UInt8(ascii: "\\") else {
                    bytes.append(byte)
                    continue
                }
                guard position < text.count else { break }
                let escape = text[position]
                position += 1
                switch escape {
                case UInt8(ascii: "n"): bytes.append(0x0A)
                case UInt8(ascii: "t"): bytes.append(0x09)
                case UInt8(ascii: "r"): bytes.append(0x0D)
                case UInt8(ascii: "b"): bytes.append(0x08)
                case UInt8(ascii: "f"): bytes.append(0x0C)
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit), position + 1 < text.count,
                       text[position] == UInt8(ascii: "\\"), text[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let low = try hex4()
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    bytes.append(contentsOf: Array(String(Unicode.Scalar(unit).map(Character.init) ?? "\u{FFFD}").utf8))
                default: bytes.append(escape)
                }
            }
            throw Malformed(offset: position)
        }

        mutating func hex4() throws(Malformed) -> UInt32 {
            guard position + 4 <= text.count,
                  let unit = UInt32(String(decoding: text[position..<position + 4], as: UTF8.self), radix: 16) else {
                throw Malformed(offset: position)
            }
            position += 4
            return unit
        }

        mutating func number() throws(Malformed) -> JSONTree {
            let start = position
            while position < text.count, "+-0123456789.eE".utf8.contains(text[position]) { position += 1 }
            let token = String(decoding: text[start..<position], as: UTF8.self)
            if let integer = Int64(token) { return .integer(integer) }
            guard let number = Double(token) else { throw Malformed(offset: start) }
            return .number(number)
        }
    }
}
