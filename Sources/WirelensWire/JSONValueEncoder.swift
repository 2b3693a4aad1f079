/// Encodes an `Encodable` into a `JSONValue`, object members in the order `encode(to:)` writes them, so that a
/// Codable wire type renders to the same bytes on every run (Foundation's JSONEncoder orders keys by hash).
///
/// Strings, integers, arrays, objects and absent optionals (left out) are supported; a `Bool` or a floating-point
/// value throws, as `JSONValue` has no case for it.
struct JSONValueEncoder: Encoder {
    let node: JSONNode
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: JSONNode, codingPath: [any CodingKey] = []) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }

    /// Encodes `value` into `node` through its own `encode(to:)`.
    static func put<T: Encodable>(_ value: T, into node: JSONNode, codingPath: [any CodingKey]) throws {
        try value.encode(to: JSONValueEncoder(node: node, codingPath: codingPath))
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: JSONNode
        var codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .value(.null) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

        private func put<T: Encodable>(_ value: T, _ key: Key) throws {
            try JSONValueEncoder.put(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                            forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            JSONValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            JSONValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            JSONValueEncoder(node: node.member("super"), codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            JSONValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: JSONNode
        var codingPath: [any CodingKey]
        var count: Int { node.itemCount }

        mutating func encodeNil() throws { node.appendItem().content = .value(.null) }
        mutating func encode(_ value: Bool) throws { try put(value) }
        mutating func encode(_ value: String) throws { try put(value) }
        mutating func encode(_ value: Double) throws { try put(value) }
        mutating func encode(_ value: Float) throws { try put(value) }
        mutating func encode(_ value: Int) throws { try put(value) }
        mutating func encode(_ value: Int8) throws { try put(value) }
        mutating func encode(_ value: Int16) throws { try put(value) }
        mutating func encode(_ value: Int32) throws { try put(value) }
        mutating func encode(_ value: Int64) throws { try put(value) }
        mutating func encode(_ value: UInt) throws { try put(value) }
        mutating func encode(_ value: UInt8) throws { try put(value) }
        mutating func encode(_ value: UInt16) throws { try put(value) }
        mutating func encode(_ value: UInt32) throws { try put(value) }
        mutating func encode(_ value: UInt64) throws { try put(value) }
        mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

        private func put<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.put(value, into: node.appendItem(), codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            JSONValueEncoder(node: node.appendItem(), codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            JSONValueEncoder(node: node.appendItem(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { JSONValueEncoder(node: node.appendItem(), codingPath: codingPath) }
    }

    private struct SingleContainer: SingleValueEncodingContainer {
        let node: JSONNode
        var codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .value(.null) }
        mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
        mutating func encode(_ value: Int) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: Int8) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: Int16) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: Int32) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.content = .value(.int(value)) }
        mutating func encode(_ value: UInt) throws { try integer(value) }
        mutating func encode(_ value: UInt8) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { node.content = .value(.int(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { try integer(value) }
        mutating func encode(_ value: Bool) throws { throw unsupported(value) }
        mutating func encode(_ value: Double) throws { throw unsupported(value) }
        mutating func encode(_ value: Float) throws { throw unsupported(value) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.put(value, into: node, codingPath: codingPath)
        }

        private func integer<T: BinaryInteger>(_ value: T) throws {
            guard let exact = Int64(exactly: value) else { throw unsupported(value) }
            node.content = .value(.int(exact))
        }

        private func unsupported(_ value: Any) -> EncodingError {
            EncodingError.invalidValue(value, .init(codingPath: codingPath,
                                                    debugDescription: "JSONValue holds strings, integers, arrays and objects only"))
        }
    }
}
