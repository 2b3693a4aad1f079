/// Writes JSON pieces into memory its caller has sized: no capacity or uniqueness check per piece, as each
/// `Array.append` does (the cost of a capture report's connections, which hold some thirty pieces per exchange).
///
/// The caller reserves at least as many bytes as it may write (`CaptureConnectionJSONWriter` bounds a connection's
/// head and each exchange from their strings' lengths) and hands the cursor the first of them
/// (`[UInt8].appendJSON(bound:_:)`), then keeps `count` bytes.
struct JSONByteCursor {
    private let start: UnsafeMutablePointer<UInt8>
    private var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        position = start
    }

    /// The number of bytes written so far.
    var count: Int { position - start }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        position.update(from: text.utf8Start, count: count)
        position += count
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        position.pointee = value
        position += 1
    }

    mutating func bytes(_ values: UnsafeBufferPointer<UInt8>) {
        guard let base = values.baseAddress else { return }
        position.update(from: base, count: values.count)
        position += values.count
    }

    /// `true` or `false`.
    @inline(__always)
    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Twenty-four bytes stored at once (three words); the caller then writes over those past the ones it keeps.
    @inline(__always)
    mutating func words(_ value: (UInt64, UInt64, UInt64), keeping kept: Int) {
        let raw = UnsafeMutableRawPointer(position)
        raw.storeBytes(of: value.0, as: UInt64.self)
        raw.storeBytes(of: value.1, toByteOffset: 8, as: UInt64.self)
        raw.storeBytes(of: value.2, toByteOffset: 16, as: UInt64.self)
        position += kept
    }

    /// An unsigned integer in decimal (at most 20 bytes), two digits at a time. The single digits (most of a
    /// connection's counters) are written in place of the call.
    @inline(__always)
    mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            byte(UInt8(truncatingIfNeeded: 48 &+ value))
        } else {
            digits(value)
        }
    }

    /// `unsigned` for 10 and above.
    private mutating func digits(_ value: UInt64) {
        let digits = Self.decimalDigits(value)
        var v = value
        var at = position + digits
        let pairs = Self.digitPairs.utf8Start
        while v >= 100 {
            let pair = Int(v % 100)
            v /= 100
            at -= 2
            at[0] = pairs[2 * pair]
            at[1] = pairs[2 * pair + 1]
        }
        if v >= 10 {
            at -= 2
            at[0] = pairs[2 * Int(v)]
            at[1] = pairs[2 * Int(v) + 1]
        } else {
            at -= 1
            at[0] = UInt8(truncatingIfNeeded: 48 &+ v)
        }
        position += digits
    }

    /// The number of decimal digits of `value` (1 to 20): a few comparisons up to ten digits.
    @inline(__always)
    private static func decimalDigits(_ value: UInt64) -> Int {
        if value < 100_000 {
            if value < 100 { return value < 10 ? 1 : 2 }
            return value < 1000 ? 3 : value < 10000 ? 4 : 5
        }
        if value < 10_000_000_000 {
            if value < 10_000_000 { return value < 1_000_000 ? 6 : 7 }
            return value < 100_000_000 ? 8 : value < 1_000_000_000 ? 9 : 10
        }
        var digits = 11
        var bound: UInt64 = 100_000_000_000
        while digits < 20 && value >= bound {
            digits += 1
            bound = bound &* 10
        }
        return digits
    }

    /// A signed integer in decimal (at most 20 bytes).
    mutating func int(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        unsigned(value.magnitude)
    }

    /// An IPv4 address (its four bytes the low 32 bits of `value`) as a JSON string in dotted-quad form, the text
    /// of `IPAddress.description` (at most 17 bytes).
    mutating func ipv4String(_ value: UInt64) {
        byte(UInt8(ascii: "\""))
        unsigned(value >> 24 & 0xff)
        byte(UInt8(ascii: "."))
        unsigned(value >> 16 & 0xff)
        byte(UInt8(ascii: "."))
        unsigned(value >> 8 & 0xff)
        byte(UInt8(ascii: "."))
        unsigned(value & 0xff)
        byte(UInt8(ascii: "\""))
    }

    /// A string as a JSON string, escaped as `JSONBytes.appendString` escapes it (at most 6 bytes per UTF-8 byte,
    /// and 2 for the quotes).
    mutating func string(_ text: String) {
        let copied = text.utf8.withContiguousStorageIfAvailable { (utf8: UnsafeBufferPointer<UInt8>) -> Bool in
            plain(utf8)
        }
        switch copied {
        case true?: return
        case false?: appending { JSONBytes.appendString(text, to: &$0) }  // rare: escapes
        case nil:
            var text = text
            let plain = text.withUTF8 { (utf8: UnsafeBufferPointer<UInt8>) -> Bool in self.plain(utf8) }
            if !plain { appending { JSONBytes.appendString(text, to: &$0) } }
        }
    }

    /// Writes `utf8` quoted when none of its bytes needs escaping (copied while checked); false, with nothing
    /// written, when one does.
    private mutating func plain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let begin = position
        var at = position
        at.pointee = UInt8(ascii: "\"")
        at += 1
        let escapes = Self.escapes.utf8Start
        for b in utf8 {
            at.pointee = b
            at += 1
            if escapes[Int(b)] != UInt8(ascii: "0") {
                position = begin
                return false
            }
        }
        at.pointee = UInt8(ascii: "\"")
        position = at + 1
        return true
    }

    /// One byte per byte value: "1" for the bytes a JSON string escapes (controls, `"` and `\`), else "0".
    private static var escapes: StaticString {
        """
        11111111111111111111111111111111001000000000000000000000000000000000000000000000000000000000100000000000\
        00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
        000000000000000000000000000000000000000000000000
        """
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

    /// A count of tenths (a value rounded to one decimal, `(x * 10).rounded() / 10`) as `JSONBytes.appendDouble`
    /// writes it; false, with nothing written, for values it leaves to the Double path.
    ///
    /// Below 2^40 a Double's spacing is under 0.001, so `q.d` (the decimal the rounded value came from) is the
    /// shortest text that reads back as it: Swift's description of the value.
    mutating func tenths(_ value: Double) -> Bool {
        guard value >= 0, value < 0x1p40 else { return false }
        let scaled = (value * 10).rounded()
        guard scaled / 10 == value else { return false }
        let tenths = UInt64(scaled)
        unsigned(tenths / 10)
        let digit = tenths % 10
        if digit != 0 {
            byte(UInt8(ascii: "."))
            byte(UInt8(truncatingIfNeeded: 48 &+ digit))
        }
        return true
    }

    /// The six digits of an instant's fraction of a second (µs, 0 to 999 999), then its closing `Z"`.
    @inline(__always)
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

extension [UInt8] {
    /// Appends what `body` writes through a cursor into reserved capacity: at most `bound` bytes (the caller's
    /// bound on what it writes; checked after the fact, so a wrong bound stops the program instead of going on).
    mutating func appendJSON(bound: Int, _ body: (inout JSONByteCursor) -> Void) {
        append(addingCapacity: bound) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var out = JSONByteCursor(buffer.baseAddress! + initialized)
                body(&out)
                precondition(initialized + out.count <= buffer.count, "JSON piece longer than its bound")
                initialized += out.count
            }
        }
    }
}
