import Foundation

/// A fast JSON encoder for Codable values that writes as it goes and keeps keys in the order they are encoded.
///
/// Foundation's JSONEncoder builds a tree of boxed values first and (on Linux) loses key order; for a report
/// of 20 000 tasks it took most of a run's time. This encoder streams into one byte buffer. It expects what
/// every `encode(to:)` in this project does: a container is finished before its parent encodes its next value.
public struct StreamingJSONEncoder {
    /// Two-space indentation and one value per line; false writes compact JSON.
    public var prettyPrinted: Bool
    /// Indentation levels added to every line: for a value written inside a document encoded separately
    /// (the connections of a capture report, written one by one).
    public var baseIndent = 0

    public init(prettyPrinted: Bool = true) {
        self.prettyPrinted = prettyPrinted
    }

    /// Encodes `value` as UTF-8 JSON text.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let sink = JSONSink(pretty: prettyPrinted)
        sink.baseIndent = baseIndent
        try sink.encodeValue(value, codingPath: [])
        sink.closeFrames(above: -1)
        return sink.bytes
    }
}

/// The output buffer and the stack of open objects and arrays.
final class JSONSink {
    var bytes: [UInt8] = []
    let pretty: Bool
    /// Levels of indentation below which this document's lines start.
    var baseIndent = 0
    /// Open containers, outermost first: whether each is an object, and how many members it has.
    private var frames: [(isObject: Bool, count: Int)] = []

    init(pretty: Bool) {
        self.pretty = pretty
        bytes.reserveCapacity(1 << 16)
    }

    /// Opens an object or array at the current position; returns its depth.
    func open(object: Bool) -> Int {
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append((object, 0))
        return frames.count - 1
    }

    /// Closes every container deeper than `depth` (containers whose encoding has finished).
    func closeFrames(above depth: Int) {
        while frames.count - 1 > depth {
            let frame = frames.removeLast()
            if frame.count > 0 { newline(indent: frames.count) }
            bytes.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Starts the next member of the container at `depth`: its separator, indentation and (for objects) key.
    func beginMember(depth: Int, key: String?) {
        closeFrames(above: depth)
        if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        newline(indent: depth + 1)
        if let key {
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            if pretty { bytes.append(UInt8(ascii: " ")) }
        }
    }

    /// "\n" followed by 2 spaces per level, sliced per call (one append, not one per byte).
    private static let indentation: [UInt8] = [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 64)

    private func newline(indent: Int) {
        guard pretty else { return }
        bytes.append(contentsOf: Self.indentation[0..<(1 + min(2 * (indent + baseIndent), 64))])
    }

    func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    func writeString(_ text: String) {
        JSONBytes.appendString(text, to: &bytes)
    }

    func writeInt(_ value: Int64) {
        JSONBytes.appendInt(value, to: &bytes)
    }

    func writeUnsigned(_ value: UInt64) {
        JSONBytes.appendUnsigned(value, to: &bytes)
    }

    func writeDouble(_ value: Double, codingPath: [CodingKey]) throws {
        guard JSONBytes.appendDouble(value, to: &bytes) else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath,
                                                          debugDescription: "JSON has no \(value)"))
        }
    }

    /// Writes any Encodable at the current position.
    func encodeValue<T: Encodable>(_ value: T, codingPath: [CodingKey]) throws {
        // The common leaf types, and their optionals, by type identity: no dynamic cast and no nested encoder.
        let type = ObjectIdentifier(T.self)
        switch type {
        case ObjectIdentifier(String.self): writeString(unsafeBitCast(value, to: String.self)); return
        case ObjectIdentifier(Int.self): writeInt(Int64(unsafeBitCast(value, to: Int.self))); return
        case ObjectIdentifier(Int64.self): writeInt(unsafeBitCast(value, to: Int64.self)); return
        case ObjectIdentifier(Bool.self): writeRaw(unsafeBitCast(value, to: Bool.self) ? "true" : "false"); return
        case ObjectIdentifier(Double.self): try writeDouble(unsafeBitCast(value, to: Double.self), codingPath: codingPath); return
        case ObjectIdentifier(String?.self):
            if let v = unsafeBitCast(value, to: String?.self) { writeString(v) } else { writeRaw("null") }
            return
        case ObjectIdentifier(Int?.self):
            if let v = unsafeBitCast(value, to: Int?.self) { writeInt(Int64(v)) } else { writeRaw("null") }
            return
        case ObjectIdentifier(Int64?.self):
            if let v = unsafeBitCast(value, to: Int64?.self) { writeInt(v) } else { writeRaw("null") }
            return
        case ObjectIdentifier(Double?.self):
            if let v = unsafeBitCast(value, to: Double?.self) { try writeDouble(v, codingPath: codingPath) } else { writeRaw("null") }
            return
        default:
            break
        }
        switch value {
        case let v as Int32: writeInt(Int64(v))
        default:
            let before = bytes.count
            let depth = frames.count
            try value.encode(to: StreamingEncoder(sink: self, codingPath: codingPath))
            if bytes.count == before, frames.count == depth { writeRaw("{}") }
        }
    }
}

/// The Encoder handed to `encode(to:)`.
struct StreamingEncoder: Encoder {
    let sink: JSONSink
    var codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(StreamingKeyedContainer<Key>(sink: sink, depth: sink.open(object: true),
                                                            codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        StreamingUnkeyedContainer(sink: sink, depth: sink.open(object: false), codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        StreamingSingleValueContainer(sink: sink, codingPath: codingPath)
    }
}

struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: JSONSink
    let depth: Int
    var codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        sink.beginMember(depth: depth, key: key.stringValue)
        sink.writeRaw("null")
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        sink.beginMember(depth: depth, key: key.stringValue)
        try sink.encodeValue(value, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        sink.beginMember(depth: depth, key: key.stringValue)
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(
            sink: sink, depth: sink.open(object: true), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        sink.beginMember(depth: depth, key: key.stringValue)
        return StreamingUnkeyedContainer(sink: sink, depth: sink.open(object: false), codingPath: codingPath)
    }

    mutating func superEncoder() -> Encoder {
        sink.beginMember(depth: depth, key: "super")
        return StreamingEncoder(sink: sink, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        sink.beginMember(depth: depth, key: key.stringValue)
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
        sink.beginMember(depth: depth, key: nil)
        sink.writeRaw("null")
        count += 1
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        sink.beginMember(depth: depth, key: nil)
        try sink.encodeValue(value, codingPath: codingPath)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        sink.beginMember(depth: depth, key: nil)
        count += 1
        return KeyedEncodingContainer(StreamingKeyedContainer<NestedKey>(
            sink: sink, depth: sink.open(object: true), codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        sink.beginMember(depth: depth, key: nil)
        count += 1
        return StreamingUnkeyedContainer(sink: sink, depth: sink.open(object: false), codingPath: codingPath)
    }

    mutating func superEncoder() -> Encoder {
        sink.beginMember(depth: depth, key: nil)
        count += 1
        return StreamingEncoder(sink: sink, codingPath: codingPath)
    }
}

struct StreamingSingleValueContainer: SingleValueEncodingContainer {
    let sink: JSONSink
    var codingPath: [CodingKey]

    mutating func encodeNil() throws { sink.writeRaw("null") }
    mutating func encode(_ value: Bool) throws { sink.writeRaw(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { sink.writeString(value) }
    mutating func encode(_ value: Double) throws { try sink.writeDouble(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try sink.writeDouble(Double(value), codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { sink.writeInt(Int64(value)) }
    mutating func encode(_ value: Int8) throws { sink.writeInt(Int64(value)) }
    mutating func encode(_ value: Int16) throws { sink.writeInt(Int64(value)) }
    mutating func encode(_ value: Int32) throws { sink.writeInt(Int64(value)) }
    mutating func encode(_ value: Int64) throws { sink.writeInt(Int64(value)) }
    mutating func encode(_ value: UInt) throws { sink.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { sink.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { sink.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { sink.writeUnsigned(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { sink.writeUnsigned(UInt64(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try sink.encodeValue(value, codingPath: codingPath) }
}
