/// A JSON document being written into one byte buffer: the bytes and the stack of open objects and arrays; the one
/// JSON writer of Wirelens (reports, capture reports, the target's answers), its values through `JSONBytes`.
///
/// A value type, mutated in place: `StreamingJSONEncoder` keeps one inside the box its Codable containers share
/// (one access of the box per value written), and a document written over time (`JSONRenderer.Stream`) keeps one
/// as a stored property and writes its members and array elements directly, so the writer always knows where in
/// the document it is: no closing bytes are cut off or looked for afterwards.
package struct JSONWriter {
    /// What has been written and not yet handed on.
    package var bytes: [UInt8] = []
    /// Two-space indentation and one value per line; false writes compact JSON.
    package let pretty: Bool
    /// Levels of indentation below which this document's lines start.
    package var baseIndent = 0
    /// Open containers, outermost first: whether each is an object, and how many members it has.
    private var frames: [Frame] = []

    private struct Frame {
        var isObject: Bool
        var count: Int
    }

    package init(pretty: Bool, capacity: Int = 1 << 16) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// How many containers are open.
    package var depth: Int { frames.count }

    /// Where the writer stands: the bytes written and the containers open (to tell whether a value wrote anything).
    package var mark: (bytes: Int, depth: Int) { (bytes.count, frames.count) }

    /// Opens an object or array at the current position; returns its index in the stack of open containers.
    package mutating func open(object: Bool) -> Int {
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(isObject: object, count: 0))
        return frames.count - 1
    }

    /// Closes every container deeper than `depth` (containers whose encoding has finished); -1 closes them all.
    package mutating func closeFrames(above depth: Int) {
        while frames.count - 1 > depth {
            let frame = frames.removeLast()
            if frame.count > 0 { newline(indent: frames.count) }
            bytes.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Starts the next member of the container at `depth`: its separator, indentation and (for objects) key;
    /// returns where the writer then stands.
    @discardableResult
    package mutating func beginMember(depth: Int, key: String?) -> (bytes: Int, depth: Int) {
        closeFrames(above: depth)
        if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[depth].count += 1
        newline(indent: depth + 1)
        if let key {
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            if pretty { bytes.append(UInt8(ascii: " ")) }
        }
        return mark
    }

    /// Writes a whole member of the container at `depth`: `beginMember` and the value.
    mutating func writeMember(depth: Int, key: String?, _ value: JSONSink.Leaf, codingPath: [CodingKey]) throws {
        beginMember(depth: depth, key: key)
        try write(value, codingPath: codingPath)
    }

    /// Writes `{}` when nothing was written since `mark` (a value that asked for no container).
    mutating func writeEmptyObject(ifNothingSince mark: (bytes: Int, depth: Int)) {
        if self.mark == mark { writeRaw("{}") }
    }

    mutating func write(_ value: JSONSink.Leaf, codingPath: [CodingKey]) throws {
        switch value {
        case .string(let v): writeString(v)
        case .int(let v): writeInt(v)
        case .unsigned(let v): writeUnsigned(v)
        case .bool(let v): writeBool(v)
        case .double(let v): try writeDouble(v, codingPath: codingPath)
        case .null: writeNull()
        }
    }

    /// "\n" followed by 2 spaces per level, sliced per call (one append, not one per byte).
    private static let indentation: [UInt8] = [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 64)

    private mutating func newline(indent: Int) {
        guard pretty else { return }
        Self.appendNewline(level: indent + baseIndent, to: &bytes)
    }

    /// Appends "\n" and the indentation of `level` (two spaces a level, at most 64): the one definition of an
    /// indented line's start, for this writer and `JSONIndenter`.
    static func appendNewline(level: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: indentation[0..<(1 + min(2 * max(0, level), 64))])
    }

    package mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package mutating func writeNull() { writeRaw("null") }

    package mutating func writeBool(_ value: Bool) { value ? writeRaw("true") : writeRaw("false") }

    package mutating func writeString(_ text: String) {
        JSONBytes.appendString(text, to: &bytes)
    }

    package mutating func writeInt(_ value: Int64) {
        JSONBytes.appendInt(value, to: &bytes)
    }

    package mutating func writeUnsigned(_ value: UInt64) {
        JSONBytes.appendUnsigned(value, to: &bytes)
    }

    package mutating func writeDouble(_ value: Double, codingPath: [CodingKey]) throws {
        guard JSONBytes.appendDouble(value, to: &bytes) else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath,
                                                          debugDescription: "JSON has no \(value)"))
        }
    }

    /// Writes a value that writes its own compact bytes at the current position, indented when the document is.
    package mutating func append(compact value: some CompactJSONWritable) {
        guard pretty else { return value.appendCompactJSON(to: &bytes) }
        var scratch: [UInt8] = []
        value.appendCompactJSON(to: &scratch)
        JSONIndenter.append(scratch, level: frames.count + baseIndent, to: &bytes)
    }

    /// Writes `value` through its Codable form at the current position (after `beginMember`, or as the document).
    package mutating func encode<T: Encodable>(_ value: T) throws {
        let depth = frames.count - 1
        let sink = JSONSink(JSONWriter(pretty: pretty, capacity: 0))
        swap(&sink.writer, &self)
        defer { swap(&sink.writer, &self) }
        try sink.encodeValue(value, codingPath: [])
        sink.writer.closeFrames(above: depth)
    }

    /// Writes the members of `value`'s Codable form (a keyed container) into the object open at the top of the
    /// stack, as if they were that object's own: how a document that is written in parts gets its members.
    ///
    /// Throws an `EncodingError` when no object is open or `value` does not encode as a keyed container.
    package mutating func encodeMembers<T: Encodable>(of value: T) throws {
        let depth = frames.count - 1
        guard depth >= 0, frames[depth].isObject else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "no object is open"))
        }
        let sink = JSONSink(JSONWriter(pretty: pretty, capacity: 0))
        swap(&sink.writer, &self)
        defer { swap(&sink.writer, &self) }
        try value.encode(to: StreamingEncoder(sink: sink, codingPath: [], membersOf: depth))
        sink.writer.closeFrames(above: depth)
        guard !sink.strayValue else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "not a keyed value"))
        }
    }
}

/// The box a Codable encoding's containers share: the writer they all write through.
final class JSONSink {
    var writer: JSONWriter
    /// Set when a value asked to write its members into an open object (`encodeMembers`) asked for an unkeyed or
    /// single-value container instead.
    var strayValue = false

    init(_ writer: JSONWriter) {
        self.writer = writer
    }

    /// A value written as one JSON token, without a nested encoder.
    enum Leaf {
        case string(String)
        case int(Int64)
        case unsigned(UInt64)
        case bool(Bool)
        case double(Double)
        case null
    }

    /// Writes any Encodable at the current position.
    func encodeValue<T: Encodable>(_ value: T, codingPath: [CodingKey]) throws {
        if let leaf = leaf(value) { return try writer.write(leaf, codingPath: codingPath) }
        if let compact = value as? any CompactJSONWritable { return writer.append(compact: compact) }
        let before = writer.mark
        try value.encode(to: StreamingEncoder(sink: self, codingPath: codingPath))
        writer.writeEmptyObject(ifNothingSince: before)
    }

    /// Writes any Encodable as the next member of the container at `depth`: one access to the writer for a leaf,
    /// two for any other value.
    func encodeMember<T: Encodable>(depth: Int, key: String?, _ value: T, codingPath: [CodingKey]) throws {
        if let leaf = leaf(value) { return try writer.writeMember(depth: depth, key: key, leaf, codingPath: codingPath) }
        let before = writer.beginMember(depth: depth, key: key)
        if let compact = value as? any CompactJSONWritable { return writer.append(compact: compact) }
        try value.encode(to: StreamingEncoder(sink: self, codingPath: codingPath))
        writer.writeEmptyObject(ifNothingSince: before)
    }

    /// The optional leaf types, looked up once per sink rather than once per value.
    private let optionalTypes = OptionalLeafTypes()

    private struct OptionalLeafTypes {
        let string: Any.Type = String?.self
        let int: Any.Type = Int?.self
        let int64: Any.Type = Int64?.self
        let double: Any.Type = Double?.self
        let uint64: Any.Type = UInt64?.self
        let uint32: Any.Type = UInt32?.self
    }

    /// The common leaf types and their optionals; nil for any other type.
    ///
    /// The type is compared first (one pointer comparison per candidate), so a value of any other type costs no
    /// dynamic cast; where `T` is known at compile time the whole test folds away.
    func leaf<T>(_ value: T) -> Leaf? {
        let type: Any.Type = T.self
        if type == String.self, let v = value as? String { return .string(v) }
        if type == Int.self, let v = value as? Int { return .int(Int64(v)) }
        if type == Int64.self, let v = value as? Int64 { return .int(v) }
        if type == Bool.self, let v = value as? Bool { return .bool(v) }
        if type == Double.self, let v = value as? Double { return .double(v) }
        if type == Int32.self, let v = value as? Int32 { return .int(Int64(v)) }
        if type == UInt64.self, let v = value as? UInt64 { return .unsigned(v) }
        if type == UInt32.self, let v = value as? UInt32 { return .unsigned(UInt64(v)) }
        let optional = optionalTypes
        if type == optional.string, let v = value as? String? { return v.map(Leaf.string) ?? .null }
        if type == optional.int, let v = value as? Int? { return v.map { .int(Int64($0)) } ?? .null }
        if type == optional.int64, let v = value as? Int64? { return v.map(Leaf.int) ?? .null }
        if type == optional.double, let v = value as? Double? { return v.map(Leaf.double) ?? .null }
        if type == optional.uint64, let v = value as? UInt64? { return v.map(Leaf.unsigned) ?? .null }
        if type == optional.uint32, let v = value as? UInt32? { return v.map { .unsigned(UInt64($0)) } ?? .null }
        return nil
    }
}
