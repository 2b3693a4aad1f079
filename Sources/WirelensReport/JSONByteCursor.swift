/// Writes JSON pieces into memory its caller has sized: no capacity or uniqueness check per piece, as each
/// `Array.append` does (the cost of a capture report's exchanges, which hold some thirty pieces each).
///
/// The caller allocates at least as many bytes as it may write (`CaptureConnectionJSONWriter` bounds an
/// exchange's JSON from its strings' lengths), then takes `written` bytes from the start.
struct JSONByteCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        position = start
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: position - start) }

    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        position.update(from: text.utf8Start, count: count)
        position += count
    }

    mutating func byte(_ value: UInt8) {
        position.pointee = value
        position += 1
    }

    mutating func bytes(_ values: UnsafeBufferPointer<UInt8>) {
        guard let base = values.baseAddress else { return }
        position.update(from: base, count: values.count)
        position += values.count
    }

    /// An unsigned integer in decimal (at most 20 bytes).
    mutating func unsigned(_ value: UInt64) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var v = value
        var at = position + digits
        repeat {
            at -= 1
            at.pointee = UInt8(48 + v % 10)
            v /= 10
        } while v > 0
        position += digits
    }

    /// A signed integer in decimal (at most 20 bytes).
    mutating func int(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        unsigned(value.magnitude)
    }

    /// A string as a JSON string, escaped as `JSONBytes.appendString` escapes it (at most 6 bytes per UTF-8 byte,
    /// and 2 for the quotes).
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            byte(UInt8(ascii: "\""))
            for b in utf8 where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                // Rare: escape the whole string as the shared writer does, then copy it.
                position -= 1
                var escaped: [UInt8] = []
                JSONBytes.appendString(String(decoding: utf8, as: UTF8.self), to: &escaped)
                escaped.withUnsafeBufferPointer { bytes($0) }
                return
            }
            bytes(utf8)
            byte(UInt8(ascii: "\""))
        }
    }

    /// A duration (µs) in milliseconds, as `JSONBytes.appendMillis` writes it.
    mutating func millis(_ micros: Int64) {
        guard micros.magnitude < 1 << 50 else {
            appending { JSONBytes.appendMillis(micros: micros, to: &$0) }
            return
        }
        if micros < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        unsigned(magnitude / 1000)
        var fraction = magnitude % 1000
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while fraction != 0 {
            byte(UInt8(48 + fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    /// The six digits of an instant's fraction of a second (µs, 0 to 999 999), then its closing `Z"`.
    mutating func fraction(_ micros: Int64) {
        let value = Int(micros)
        let pairs = Self.digitPairs.utf8Start
        let high = value / 10_000, middle = value / 100 % 100, low = value % 100
        position[0] = pairs[2 * high]
        position[1] = pairs[2 * high + 1]
        position[2] = pairs[2 * middle]
        position[3] = pairs[2 * middle + 1]
        position[4] = pairs[2 * low]
        position[5] = pairs[2 * low + 1]
        position[6] = UInt8(ascii: "Z")
        position[7] = UInt8(ascii: "\"")
        position += 8
    }

    /// "00" to "99", two bytes each.
    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// Bytes that the shared writer (`JSONBytes`) appends to an array: for the rare pieces written no faster here.
    mutating func appending(_ body: (inout [UInt8]) -> Void) {
        var piece: [UInt8] = []
        body(&piece)
        piece.withUnsafeBufferPointer { bytes($0) }
    }
}
