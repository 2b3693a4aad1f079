/// A JSON document being written into one byte buffer: the bytes and the stack of open objects and arrays.
///
/// A value type, mutated in place: `StreamingJSONEncoder` keeps one inside the box its Codable containers share
/// (one access of the box per value written), and a document written over time (`JSONRenderer.Stream`) keeps one
/// as a stored property and writes its members and array elements directly, so the writer always knows where in
/// the document it is: no closing bytes are cut off or looked for afterwards.
struct JSONWriter {
    /// What has been written and not yet handed on.
    var bytes: [UInt8] = []
    /// Two-space indentation and one value per line; false writes compact JSON.
    let pretty: Bool
    /// Levels of indentation below which this document's lines start.
    var baseIndent = 0
    /// Open containers, outermost first: whether each is an object, and how many members it has.
    private var frames: [Frame] = []

    private struct Frame {
        var isObject: Bool
        var count: Int
    }

    init(pretty: Bool, capacity: Int = 1 << 16) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// How many containers are open.
    var depth: Int { frames.count }

    /// Where the writer stands: the bytes written and the containers open (to tell whether a value wrote anything).
    var mark: (bytes: Int, depth: Int) { (bytes.count, frames.count) }

    /// Opens an object or array at the current position; returns its index in the stack of open containers.
    mutating func open(object: Bool) -> Int {
        bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(isObject: object, count: 0))
        return frames.count - 1
    }

    /// Closes every container deeper than `depth` (containers whose encoding has finished); -1 closes them all.
    mutating func closeFrames(above depth: Int) {
        while frames.count - 1 > depth {
            let frame = frames.removeLast()
            if frame.count > 0 { newline(indent: frames.count) }
            bytes.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Starts the next member of the container at `depth`: its separator, indentation and (for objects) key.
    mutating func beginMember(depth: Int, key: String?) {
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

    private mutating func newline(indent: Int) {
        guard pretty else { return }
        bytes.append(contentsOf: Self.indentation[0..<(1 + min(2 * (indent + baseIndent), 64))])
    }

    mutating func writeRaw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func writeNull() { writeRaw("null") }

    mutating func writeBool(_ value: Bool) { value ? writeRaw("true") : writeRaw("false") }

    mutating func writeString(_ text: String) {
        JSONBytes.appendString(text, to: &bytes)
    }

    mutating func writeInt(_ value: Int64) {
        JSONBytes.appendInt(value, to: &bytes)
    }

    mutating func writeUnsigned(_ value: UInt64) {
        JSONBytes.appendUnsigned(value, to: &bytes)
    }

    mutating func writeDouble(_ value: Double, codingPath: [CodingKey]) throws {
        guard JSONBytes.appendDouble(value, to: &bytes) else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath,
                                                          debugDescription: "JSON has no \(value)"))
        }
    }

    /// Writes `value` through its Codable form at the current position (after `beginMember`, or as the document).
    mutating func encode<T: Encodable>(_ value: T) throws {
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
    mutating func encodeMembers<T: Encodable>(of value: T) throws {
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

    /// Writes any Encodable at the current position.
    func encodeValue<T: Encodable>(_ value: T, codingPath: [CodingKey]) throws {
        if try writeLeaf(value, codingPath: codingPath) { return }
        let before = writer.mark
        try value.encode(to: StreamingEncoder(sink: self, codingPath: codingPath))
        if writer.mark == before { writer.writeRaw("{}") }
    }

    /// Writes the common leaf types and their optionals without a nested encoder; false for any other type.
    ///
    /// The type is compared first (one pointer comparison per candidate), so a value of any other type costs no
    /// dynamic cast; where `T` is known at compile time the whole test folds away.
    private func writeLeaf<T>(_ value: T, codingPath: [CodingKey]) throws -> Bool {
        let type: Any.Type = T.self
        if type == String.self, let v = value as? String {
            writer.writeString(v)
        } else if type == Int.self, let v = value as? Int {
            writer.writeInt(Int64(v))
        } else if type == Int64.self, let v = value as? Int64 {
            writer.writeInt(v)
        } else if type == Bool.self, let v = value as? Bool {
            writer.writeBool(v)
        } else if type == Double.self, let v = value as? Double {
            try writer.writeDouble(v, codingPath: codingPath)
        } else if type == Int32.self, let v = value as? Int32 {
            writer.writeInt(Int64(v))
        } else if type == String?.self, let v = value as? String? {
            if let v { writer.writeString(v) } else { writer.writeNull() }
        } else if type == Int?.self, let v = value as? Int? {
            if let v { writer.writeInt(Int64(v)) } else { writer.writeNull() }
        } else if type == Int64?.self, let v = value as? Int64? {
            if let v { writer.writeInt(v) } else { writer.writeNull() }
        } else if type == Double?.self, let v = value as? Double? {
            if let v { try writer.writeDouble(v, codingPath: codingPath) } else { writer.writeNull() }
        } else {
            return false
        }
        return true
    }
}
