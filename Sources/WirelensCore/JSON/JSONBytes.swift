/// JSON primitives appended straight to a byte buffer: strings, integers, durations and instants.
///
/// The one writer's primitives: `JSONWriter` (and so `StreamingJSONEncoder`) and the byte writers of the reports
/// (`TaskJSONWriter`, `KernelFactsJSONWriter`, `ConnectionRecordJSONWriter`) write every value through them.
package enum JSONBytes {
    /// Appends `text` as a JSON string, escaping quotes, backslashes and control characters (`JSONStringLiteral`).
    @inlinable @inline(__always)
    package static func appendString(_ text: String, to bytes: inout [UInt8]) {
        JSONStringLiteral.append(text, to: &bytes)
    }

    /// Appends an integer in decimal.
    @inlinable
    package static func appendInt(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // Int64.min has no positive counterpart: write its magnitude as unsigned.
            appendUnsigned(value.magnitude, to: &bytes)
        } else {
            appendUnsigned(UInt64(value), to: &bytes)
        }
    }

    /// Appends an unsigned integer in decimal.
    @inlinable
    package static func appendUnsigned(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(UInt8(48 + value))
            return
        }
        // Up to 20 digits, written backwards into a small stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var v = value
            var i = 20
            while v > 0 {
                i -= 1
                digits[i] = UInt8(48 + v % 10)
                v /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i..<20]))
        }
    }

    /// Appends a Double as JSON: integral values without a fraction, others in Swift's shortest form.
    ///
    /// Returns false (and appends nothing) for NaN and infinities, which JSON cannot hold.
    @inlinable @discardableResult
    package static func appendDouble(_ value: Double, to bytes: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        if value == value.rounded(), abs(value) < 1e15 {
            appendInt(Int64(value), to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
        return true
    }

    /// Appends µs as ms with up to three fraction digits: the same text `appendDouble(Double(micros) / 1000)` gives.
    ///
    /// Exact decimal arithmetic instead of a Double's shortest form, for the hundreds of thousands of
    /// durations a large report holds. Beyond ±2^50 µs (35 years) a Double's spacing nears 0.001 ms and its
    /// shortest form can drop a digit, so there the Double path is used.
    @inlinable
    package static func appendMillis(micros: Int64, to bytes: inout [UInt8]) {
        guard micros.magnitude < 1 << 50 else {
            appendDouble(Double(micros) / 1000, to: &bytes)
            return
        }
        if micros < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        appendUnsigned(magnitude / 1000, to: &bytes)
        var fraction = magnitude % 1000
        guard fraction != 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var divisor: UInt64 = 100
        while fraction != 0 {
            bytes.append(UInt8(48 + fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }

    /// Appends an instant as a JSON string in the RFC 3339 form of `WallClock.iso8601(micros:)`.
    @inlinable
    package static func appendInstant(micros: Int64, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        WallClock.appendISO8601(micros: micros, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}
