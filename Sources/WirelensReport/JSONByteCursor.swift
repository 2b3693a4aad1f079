import WirelensCore

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

    /// Static text, stored in place of the call (its bytes are constants of the code).
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        position.initialize(from: text.utf8Start, count: count)
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

    /// An unsigned integer in decimal (at most 20 bytes). Below 1000 (most of a connection's counters, an
    /// exchange's status and header sizes) it is written in place of the call.
    @inline(__always)
    mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            byte(UInt8(truncatingIfNeeded: 48 &+ value))
        } else if value < 100 {
            pair(Int(truncatingIfNeeded: value))
        } else if value < 1000 {
            let hundreds = value / 100
            byte(UInt8(truncatingIfNeeded: 48 &+ hundreds))
            pair(Int(truncatingIfNeeded: value &- hundreds &* 100))
        } else {
            digits(value)
        }
    }

    /// Two decimal digits, `00` to `99`, stored at once.
    @inline(__always)
    private mutating func pair(_ value: Int) {
        UnsafeMutableRawPointer(position).storeBytes(of: Self.pairWord(value), as: UInt16.self)
        position += 2
    }

    /// The two digits of `value` (0 to 99) as they lie in memory.
    @inline(__always)
    private static func pairWord(_ value: Int) -> UInt16 {
        UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: 2 * value, as: UInt16.self)
    }

    /// `unsigned` for 1000 and above, two digits at a time.
    private mutating func digits(_ value: UInt64) {
        let digits = Self.decimalDigits(value)
        var v = value
        var at = position + digits
        while v >= 100 {
            let pair = Int(truncatingIfNeeded: v % 100)
            v /= 100
            at -= 2
            UnsafeMutableRawPointer(at).storeBytes(of: Self.pairWord(pair), as: UInt16.self)
        }
        if v >= 10 {
            at -= 2
            UnsafeMutableRawPointer(at).storeBytes(of: Self.pairWord(Int(truncatingIfNeeded: v)), as: UInt16.self)
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
    @inline(__always)
    mutating func int(_ value: Int64) {
        if value >= 0 { unsigned(UInt64(value)) } else { negative(value) }
    }

    /// `int` below zero.
    private mutating func negative(_ value: Int64) {
        byte(UInt8(ascii: "-"))
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

    /// A string as a JSON string, escaped by `JSONStringLiteral` (at most 6 bytes per UTF-8 byte,
    /// and 2 for the quotes).
    ///
    /// Written in place of the call, copy included: with no call left on its usual path, the caller reads the
    /// string where it lies, without retaining and releasing it.
    @inline(__always)
    mutating func string(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ plain($0) }) != true { escapedString(text) }
    }

    /// `string` for text that needs escaping (rare), or whose UTF-8 is not contiguous.
    private mutating func escapedString(_ text: String) {
        var text = text
        if !text.withUTF8({ plain($0) }) { appending { JSONStringLiteral.append(text, to: &$0) } }
    }

    /// Writes `utf8` quoted when none of its bytes needs escaping (copied while checked); false, with nothing
    /// written, when one does. From 8 bytes on, the bytes go eight at a time (the last eight overlapping the
    /// ones before), each word checked at once (`JSONStringLiteral.escapedBytes(in:)`, the escaper's own rule).
    @inline(__always)
    private mutating func plain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = utf8.count
        let text = position + 1
        if count >= 8, let source = utf8.baseAddress {
            let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(text)
            var escaped: UInt64 = 0
            var offset = 0
            while offset < count &- 8 {
                let word = from.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                to.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
                escaped |= JSONStringLiteral.escapedBytes(in: word)
                offset &+= 8
            }
            let last = from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            to.storeBytes(of: last, toByteOffset: count &- 8, as: UInt64.self)
            guard escaped | JSONStringLiteral.escapedBytes(in: last) == 0 else { return false }
        } else {
            for (i, b) in utf8.enumerated() {
                text[i] = b
                if JSONStringLiteral.isEscaped(b) { return false }
            }
        }
        position[0] = UInt8(ascii: "\"")
        text[count] = UInt8(ascii: "\"")
        position = text + count + 1
        return true
    }

    /// A duration (µs) in milliseconds, as `JSONBytes.appendMillis` writes it: the fraction's three digits stored
    /// at once, then those up to its last nonzero one kept (it stores up to 2 bytes past what it keeps).
    @inline(__always)
    mutating func millis(_ micros: Int64) {
        guard micros >= 0, micros < 1 << 50 else {
            otherMillis(micros)
            return
        }
        let whole = UInt64(micros) / 1000
        unsigned(whole)
        let fraction = UInt32(truncatingIfNeeded: UInt64(micros) &- whole &* 1000)
        if fraction != 0 { millisFraction(fraction) }
    }

    /// A fraction of a millisecond (1 to 999 µs) after its point, without trailing zeros.
    @inline(__always)
    private mutating func millisFraction(_ fraction: UInt32) {
        let tenths = fraction / 100, rest = fraction &- tenths &* 100
        position[0] = UInt8(ascii: ".")
        position[1] = UInt8(truncatingIfNeeded: 48 &+ tenths)
        UnsafeMutableRawPointer(position + 2).storeBytes(of: Self.pairWord(Int(rest)), as: UInt16.self)
        position += rest == 0 ? 2 : rest % 10 == 0 ? 3 : 4
    }

    /// `millis` below zero and from 2^50 µs on.
    private mutating func otherMillis(_ micros: Int64) {
        guard micros.magnitude < 1 << 50 else {
            appending { JSONBytes.appendMillis(micros: micros, to: &$0) }
            return
        }
        byte(UInt8(ascii: "-"))
        let whole = micros.magnitude / 1000
        unsigned(whole)
        let fraction = UInt32(truncatingIfNeeded: micros.magnitude &- whole &* 1000)
        if fraction != 0 { millisFraction(fraction) }
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

    /// The six digits of an instant's fraction of a second (µs, 0 to 999 999) and its closing `Z"`, as the eight
    /// bytes they are in memory (stored with `word`).
    @inline(__always)
    static func fraction(_ micros: Int64) -> UInt64 {
        let value = UInt32(truncatingIfNeeded: micros)
        let high = value / 10_000, rest = value &- high &* 10_000
        let middle = rest / 100, low = rest &- middle &* 100
        return UInt64(pairWord(Int(high))) | UInt64(pairWord(Int(middle))) << 16 | UInt64(pairWord(Int(low))) << 32
            | UInt64(UInt8(ascii: "Z")) << 48 | UInt64(UInt8(ascii: "\"")) << 56
    }

    /// Eight bytes stored at once, all of them kept.
    @inline(__always)
    mutating func word(_ value: UInt64) {
        UnsafeMutableRawPointer(position).storeBytes(of: value, as: UInt64.self)
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
    ///
    /// Eight bytes more than `bound` are reserved: the cursor stores whole words, some of whose last bytes it
    /// does not keep (`words`, `millis`), and may do so at the end of what it writes.
    mutating func appendJSON(bound: Int, _ body: (inout JSONByteCursor) -> Void) {
        append(addingCapacity: bound + 8) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                var out = JSONByteCursor(buffer.baseAddress! + initialized)
                body(&out)
                precondition(out.count <= bound, "JSON piece longer than its bound")
                initialized += out.count
            }
        }
    }
}
