/// A fast JSON encoder for Codable values that writes as it goes and keeps keys in the order they are encoded.
///
/// Foundation's JSONEncoder builds a tree of boxed values first and (on Linux) loses key order; for a report
/// of 20 000 tasks it took most of a run's time. This encoder streams into one byte buffer. It expects what
/// every `encode(to:)` in this project does: a container is finished before its parent encodes its next value.
package struct StreamingJSONEncoder {
    /// Two-space indentation and one value per line; false writes compact JSON.
    package var prettyPrinted: Bool
    /// Indentation levels added to every line: for a value written inside a document encoded separately
    /// (the connections of a capture report, written one by one).
    package var baseIndent = 0

    package init(prettyPrinted: Bool = true) {
        self.prettyPrinted = prettyPrinted
    }

    /// Encodes `value` as UTF-8 JSON text.
    package func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var writer = JSONWriter(pretty: prettyPrinted)
        writer.baseIndent = baseIndent
        try writer.encode(value)
        return writer.bytes
    }
}

/// The Encoder handed to `encode(to:)`.
struct StreamingEncoder: Encoder {
    let sink: JSONSink
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The depth of the open object whose members the value writes (`JSONWriter.encodeMembers`); -1 when the
    /// value opens a container of its own. A plain Int, not an optional: three words keep the encoder inside an
    /// existential's inline buffer, so handing it to `encode(to:)` allocates nothing.
    let membersOf: Int

    init(sink: JSONSink, codingPath: [CodingKey], membersOf: Int = -1) {
        self.sink = sink
        self.codingPath = codingPath
        self.membersOf = membersOf
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let depth = membersOf >= 0 ? membersOf : sink.writer.open(object: true)
        return KeyedEncodingContainer(StreamingKeyedContainer<Key>(sink: sink, depth: depth, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if membersOf >= 0 { sink.strayValue = true }
        return StreamingUnkeyedContainer(sink: sink, depth: sink.writer.open(object: false), codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        if membersOf >= 0 { sink.strayValue = true }
        return StreamingSingleValueContainer(sink: sink, codingPath: codingPath)
    }
}

struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: JSONSink
    let depth: Int
    var codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .null, codingPath: codingPath)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try sink.encodeMember(depth: depth, key: key.stringValue, value, codingPath: codingPath)
    }

    // The leaf types the project's `encode(to:)` write most, without the generic path.
    mutating func encode(_ value: String, forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .string(value), codingPath: codingPath)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .bool(value), codingPath: codingPath)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .int(Int64(value)), codingPath: codingPath)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .int(value), codingPath: codingPath)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try sink.writer.writeMember(depth: depth, key: key.stringValue, .double(value), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        sink.writer.beginMember(depth: depth, key: key.stringValue)
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(
            sink: sink, depth: sink.writer.open(object: true), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        sink.writer.beginMember(depth: depth, key: key.stringValue)
        return StreamingUnkeyedContainer(sink: sink, depth: sink.writer.open(object: false), codingPath: codingPath)
    }

    mutating func superEncoder() -> Encoder {
        sink.writer.beginMember(depth: depth, key: "super")
        return StreamingEncoder(sink: sink, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        sink.writer.beginMember(depth: depth, key: key.stringValue)
        return StreamingEncoder(sink: sink, codingPath: codingPath)
    }
}

struct StreamingUnkeyedContainer: UnkeyedEncodingContainer {
    let sink: JSONSink
    let depth: Int
    var codingPath: [CodingKey]
    var count = 0

    init(sink: JSONSink, depth: Int, codingPath: [CodingKey]) {
        self.sink = sink
        self.depth = depth
        self.codingPath = codingPath
    }

    mutating func encodeNil() throws {
        try sink.writer.writeMember(depth: depth, key: nil, .null, codingPath: codingPath)
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try sink.encodeMember(depth: depth, key: nil, value, codingPath: codingPath)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        sink.writer.beginMember(depth: depth, key: nil)
        count += 1
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(
            sink: sink, depth: sink.writer.open(object: true), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        sink.writer.beginMember(depth: depth, key: nil)
        count += 1
        return StreamingUnkeyedContainer(sink: sink, depth: sink.writer.open(object: false), codingPath: codingPath)
    }

    mutating func superEncoder() -> Encoder {
        sink.writer.beginMember(depth: depth, key: nil)
        count += 1
        return StreamingEncoder(sink: sink, codingPath: codingPath)
    }
}

struct StreamingSingleValueContainer: SingleValueEncodingContainer {
    let sink: JSONSink
    var codingPath: [CodingKey]

    mutating func encodeNil() throws { sink.writer.writeNull() }
    mutating func encode(_ value: Bool) throws { sink.writer.writeBool(value) }
    mutating func encode(_ value: String) throws { sink.writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try sink.writer.writeDouble(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try sink.writer.writeDouble(Double(value), codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { sink.writer.writeInt(Int64(value)) }
    mutating func encode(_ value: Int8) throws { sink.writer.writeInt(Int64(value)) }
    mutating func encode(_ value: Int16) throws { sink.writer.writeInt(Int64(value)) }
    mutating func encode(_ value: Int32) throws { sink.writer.writeInt(Int64(value)) }
    mutating func encode(_ value: Int64) throws { sink.writer.writeInt(value) }
    mutating func encode(_ value: UInt) throws { sink.writer.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { sink.writer.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { sink.writer.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { sink.writer.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { sink.writer.writeUnsigned(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try sink.encodeValue(value, codingPath: codingPath) }
}
