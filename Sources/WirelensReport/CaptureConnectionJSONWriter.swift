import WirelensCaptureModel
import WirelensCore

/// Writes a capture's connections (with their exchanges) as compact JSON directly into bytes: the same bytes
/// the Codable path (`CaptureReport+Encodable.swift`) gives, several times faster.
///
/// A capture of a gigabyte holds hundreds of thousands of exchanges; their JSON is most of the analysis's
/// output, so it is written field by field with keys as static text. `CaptureJSONWriterTests` holds the two
/// paths to the same output.
public struct CaptureConnectionJSONWriter {
    /// The second of the last instant written, and its text up to the fraction (`YYYY-MM-DDTHH:MM:SS.`):
    /// the instants of a capture come in runs within the same second.
    private var cachedSecond: Int64 = .min
    private var cachedPrefix: [UInt8] = []
    /// Scratch memory an exchange is written into before it is appended (`exchange`).
    private var scratch: [UInt8] = []

    public init() {}

    /// Appends one connection as a compact JSON object.
    public mutating func append(_ c: TCPConnection, to bytes: inout [UInt8]) {
        Self.raw("{\"index\":", &bytes); JSONBytes.appendInt(Int64(c.index), to: &bytes)
        Self.raw(",\"client\":", &bytes); Self.endpoint(c.client, &bytes)
        Self.raw(",\"server\":", &bytes); Self.endpoint(c.server, &bytes)
        Self.raw(",\"clientISN\":", &bytes); Self.unsigned(c.clientISN, &bytes)
        Self.raw(",\"serverISN\":", &bytes); Self.unsigned(c.serverISN, &bytes)
        Self.raw(",\"firstPacketAt\":", &bytes); instant(c.firstPacketAt, &bytes)
        Self.raw(",\"lastPacketAt\":", &bytes); instant(c.lastPacketAt, &bytes)
        Self.raw(",\"durationMs\":", &bytes); JSONBytes.appendMillis(micros: c.duration, to: &bytes)
        Self.raw(",\"handshake\":{\"synAt\":", &bytes); instant(c.synAt, &bytes)
        Self.raw(",\"synAckAt\":", &bytes); instant(c.synAckAt, &bytes)
        Self.raw(",\"ackAt\":", &bytes); instant(c.handshakeAckAt, &bytes)
        Self.raw(",\"rttMs\":", &bytes); Self.millis(c.handshakeTime, &bytes)
        Self.raw("},\"clientToServer\":", &bytes); Self.direction(c.clientToServer, duration: c.duration, &bytes)
        Self.raw(",\"serverToClient\":", &bytes); Self.direction(c.serverToClient, duration: c.duration, &bytes)
        Self.raw(",\"end\":", &bytes); JSONBytes.appendString(c.end.rawValue, to: &bytes)
        Self.raw(",\"closedBy\":", &bytes); Self.string(c.closedBy?.rawValue, &bytes)
        Self.raw(",\"closeStartedAt\":", &bytes); instant(c.closeStartedAt, &bytes)
        Self.raw(",\"longestSilenceMs\":", &bytes); JSONBytes.appendMillis(micros: c.longestSilence, to: &bytes)
        Self.raw(",\"idleGapCount\":", &bytes); JSONBytes.appendInt(Int64(c.idleGapCount), to: &bytes)
        Self.raw(",\"idleGaps\":[", &bytes)
        for (i, gap) in c.idleGaps.enumerated() {
            Self.raw(i == 0 ? "{\"startAt\":" : ",{\"startAt\":", &bytes)
            instant(gap.startAt, &bytes)
            Self.raw(",\"durationMs\":", &bytes); JSONBytes.appendMillis(micros: gap.duration, to: &bytes)
            Self.raw("}", &bytes)
        }
        Self.raw("],\"applicationProtocol\":", &bytes); Self.string(c.applicationProtocol, &bytes)
        Self.raw(",\"tls\":", &bytes)
        if let tls = c.tls {
            Self.raw("{\"serverName\":", &bytes); Self.string(tls.serverName, &bytes)
            Self.raw(",\"offeredALPN\":", &bytes); Self.strings(tls.offeredALPN, &bytes)
            Self.raw(",\"version\":", &bytes); Self.string(tls.version, &bytes)
            Self.raw(",\"chosenALPN\":", &bytes); Self.string(tls.chosenALPN, &bytes)
            Self.raw(",\"cipherSuite\":", &bytes); Self.string(tls.cipherSuite, &bytes)
            switch tls.resumed {
            case true?: Self.raw(",\"resumed\":true", &bytes)
            case false?: Self.raw(",\"resumed\":false", &bytes)
            case nil: Self.raw(",\"resumed\":null", &bytes)
            }
            Self.raw(",\"decryption\":", &bytes); Self.string(tls.decryption.rawValue, &bytes)
            Self.raw(",\"decryptionNote\":", &bytes); Self.string(tls.decryptionNote, &bytes)
            Self.raw(tls.exchangesInferred ? ",\"exchangesInferred\":true}" : ",\"exchangesInferred\":false}", &bytes)
        } else {
            Self.raw("null", &bytes)
        }
        Self.raw(",\"http2\":", &bytes)
        if let h = c.http2 {
            Self.raw("{\"clientFrames\":", &bytes); JSONBytes.appendInt(Int64(h.clientFrames), to: &bytes)
            Self.raw(",\"serverFrames\":", &bytes); JSONBytes.appendInt(Int64(h.serverFrames), to: &bytes)
            Self.raw(",\"streams\":", &bytes); JSONBytes.appendInt(Int64(h.streams), to: &bytes)
            Self.raw(",\"maxConcurrentStreams\":", &bytes); JSONBytes.appendInt(Int64(h.maxConcurrentStreams), to: &bytes)
            Self.raw(",\"resetStreams\":", &bytes); JSONBytes.appendInt(Int64(h.resetStreams), to: &bytes)
            Self.raw("}", &bytes)
        } else {
            Self.raw("null", &bytes)
        }
        Self.raw(",\"notes\":", &bytes); Self.strings(c.notes, &bytes)
        Self.raw(",\"exchanges\":[", &bytes)
        c.exchanges.withUnsafeBufferPointer { exchanges in
            for i in exchanges.indices {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                exchange(exchanges.baseAddress! + i, &bytes)
            }
        }
        Self.raw("]}", &bytes)
    }

    /// One exchange, read in place (a copy of each would retain and release its strings), written through a
    /// `JSONByteCursor` into scratch memory bounded by its strings' lengths, then appended at once.
    private mutating func exchange(_ pointer: UnsafePointer<HTTPExchange>, _ bytes: inout [UInt8]) {
        let e = pointer
        // Escaping writes at most 6 bytes per UTF-8 byte; the rest (keys, numbers, instants) stays under 1 KB.
        let bound = 1024 + 21 * e.pointee.interimStatuses.count + Self.escapedBound(e.pointee.method)
            + Self.escapedBound(e.pointee.target) + Self.escapedBound(e.pointee.httpVersion)
        if scratch.count < bound { scratch = [UInt8](repeating: 0, count: bound) }
        var memory: [UInt8] = []
        swap(&memory, &scratch)
        defer { swap(&memory, &scratch) }
        memory.withUnsafeMutableBufferPointer { buffer in
            var out = JSONByteCursor(buffer.baseAddress!)
            out.raw("{\"index\":"); out.int(Int64(e.pointee.index))
            out.raw(",\"method\":"); Self.string(e.pointee.method, &out)
            out.raw(",\"target\":"); Self.string(e.pointee.target, &out)
            out.raw(",\"httpVersion\":"); Self.string(e.pointee.httpVersion, &out)
            out.raw(",\"statusCode\":")
            if let status = e.pointee.statusCode { out.int(Int64(status)) } else { out.raw("null") }
            out.raw(",\"interimStatuses\":[")
            for (i, status) in e.pointee.interimStatuses.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.int(Int64(status))
            }
            out.raw("],\"interimAt\":"); instant(e.pointee.interimAt, &out)
            out.raw(",\"requestStartAt\":"); instant(e.pointee.requestStartAt, &out)
            out.raw(",\"requestEndAt\":"); instant(e.pointee.requestEndAt, &out)
            out.raw(",\"responseStartAt\":"); instant(e.pointee.responseStartAt, &out)
            out.raw(",\"responseEndAt\":"); instant(e.pointee.responseEndAt, &out)
            out.raw(",\"waitMs\":")
            if let wait = e.pointee.wait { out.millis(wait) } else { out.raw("null") }
            out.raw(",\"requestHeaderBytes\":"); out.int(Int64(e.pointee.requestHeaderBytes))
            out.raw(",\"requestBodyBytes\":"); out.int(e.pointee.requestBodyBytes)
            out.raw(",\"responseHeaderBytes\":"); out.int(Int64(e.pointee.responseHeaderBytes))
            out.raw(",\"responseBodyBytes\":"); out.int(e.pointee.responseBodyBytes)
            out.raw(e.pointee.pipelined ? ",\"pipelined\":true,\"pipelineDepth\":" : ",\"pipelined\":false,\"pipelineDepth\":")
            out.int(Int64(e.pointee.pipelineDepth))
            out.raw(",\"stream\":")
            if let stream = e.pointee.stream { out.int(Int64(stream)) } else { out.raw("null") }
            out.raw(e.pointee.inferred ? ",\"inferred\":true" : ",\"inferred\":false")
            out.raw(e.pointee.cutShort ? ",\"cutShort\":true" : ",\"cutShort\":false")
            out.raw(e.pointee.complete ? ",\"complete\":true}" : ",\"complete\":false}")
            bytes.append(contentsOf: out.written)
        }
    }

    /// The most bytes `value` takes as a JSON string (every UTF-8 byte escaped as `\u00XX`, and the quotes).
    private static func escapedBound(_ value: String?) -> Int {
        guard let value else { return 0 }
        return 6 * value.utf8.count + 2
    }

    private static func string(_ value: String?, _ out: inout JSONByteCursor) {
        if let value { out.string(value) } else { out.raw("null") }
    }

    /// An instant (or null) through the cursor, as `instant(_:_:)` writes it into an array.
    private mutating func instant(_ micros: Int64?, _ out: inout JSONByteCursor) {
        guard let micros else {
            out.raw("null")
            return
        }
        let second = Self.second(of: micros)
        guard cachePrefix(of: second) else {
            out.appending { JSONBytes.appendInstant(micros: micros, to: &$0) }
            return
        }
        cachedPrefix.withUnsafeBufferPointer { out.bytes($0) }
        out.fraction(micros - second * 1_000_000)
    }

    /// One direction's figures, with its throughput over the connection's duration.
    private static func direction(_ d: DirectionStats, duration: Int64, _ bytes: inout [UInt8]) {
        raw("{\"packets\":", &bytes); JSONBytes.appendInt(Int64(d.packets), to: &bytes)
        raw(",\"bytes\":", &bytes); JSONBytes.appendInt(d.bytes, to: &bytes)
        raw(",\"wireBytes\":", &bytes); JSONBytes.appendInt(d.wireBytes, to: &bytes)
        raw(",\"bytesPerSecond\":", &bytes)
        let speed = TCPConnection.throughput(d.bytes, over: duration).map { ($0 * 10).rounded() / 10 }
        if let speed, JSONBytes.appendDouble(speed, to: &bytes) {} else { raw("null", &bytes) }
        raw(",\"retransmissions\":", &bytes); JSONBytes.appendInt(Int64(d.retransmissions), to: &bytes)
        raw(",\"outOfOrder\":", &bytes); JSONBytes.appendInt(Int64(d.outOfOrder), to: &bytes)
        raw(",\"keepAlives\":", &bytes); JSONBytes.appendInt(Int64(d.keepAlives), to: &bytes)
        raw(",\"zeroWindow\":", &bytes); JSONBytes.appendInt(Int64(d.zeroWindow), to: &bytes)
        raw(",\"windowFull\":", &bytes); JSONBytes.appendInt(Int64(d.windowFull), to: &bytes)
        raw(",\"resets\":", &bytes); JSONBytes.appendInt(Int64(d.resets), to: &bytes)
        raw(",\"captureGaps\":", &bytes); JSONBytes.appendInt(Int64(d.captureGaps), to: &bytes)
        raw(",\"captureGapBytes\":", &bytes); JSONBytes.appendInt(d.captureGapBytes, to: &bytes)
        raw(",\"truncatedBytes\":", &bytes); JSONBytes.appendInt(d.truncatedBytes, to: &bytes)
        raw("}", &bytes)
    }

    private static func endpoint(_ e: Endpoint, _ bytes: inout [UInt8]) {
        raw("{\"address\":", &bytes); JSONBytes.appendString(e.address.description, to: &bytes)
        raw(",\"port\":", &bytes); JSONBytes.appendUnsigned(UInt64(e.port), to: &bytes)
        raw("}", &bytes)
    }

    private static func strings(_ values: [String], _ bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (i, value) in values.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private static func raw(_ text: StaticString, _ bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func string(_ value: String?, _ bytes: inout [UInt8]) {
        if let value { JSONBytes.appendString(value, to: &bytes) } else { raw("null", &bytes) }
    }

    private static func int(_ value: Int?, _ bytes: inout [UInt8]) {
        if let value { JSONBytes.appendInt(Int64(value), to: &bytes) } else { raw("null", &bytes) }
    }

    private static func unsigned(_ value: UInt32?, _ bytes: inout [UInt8]) {
        if let value { JSONBytes.appendUnsigned(UInt64(value), to: &bytes) } else { raw("null", &bytes) }
    }

    private static func millis(_ micros: Int64?, _ bytes: inout [UInt8]) {
        if let micros { JSONBytes.appendMillis(micros: micros, to: &bytes) } else { raw("null", &bytes) }
    }

    private mutating func instant(_ micros: Int64?, _ bytes: inout [UInt8]) {
        if let micros { instant(micros, &bytes) } else { Self.raw("null", &bytes) }
    }

    /// The instant as `JSONBytes.appendInstant` writes it, its date and time of day reused within a second.
    private mutating func instant(_ micros: Int64, _ bytes: inout [UInt8]) {
        let second = Self.second(of: micros)
        guard cachePrefix(of: second) else {
            JSONBytes.appendInstant(micros: micros, to: &bytes)
            return
        }
        bytes.append(contentsOf: cachedPrefix)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { memory in
            var out = JSONByteCursor(memory.baseAddress!)
            out.fraction(micros - second * 1_000_000)
            bytes.append(contentsOf: out.written)
        }
    }

    /// The whole second an instant (µs) falls in.
    private static func second(of micros: Int64) -> Int64 {
        micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
    }

    /// Makes `cachedPrefix` the text of `second` up to the fraction; false when its text is not of the usual
    /// length (a year of other than four digits: no cache).
    private mutating func cachePrefix(of second: Int64) -> Bool {
        guard second != cachedSecond else { return true }
        var text: [UInt8] = []
        JSONBytes.appendInstant(micros: second * 1_000_000, to: &text)
        // `"YYYY-MM-DDTHH:MM:SS.000000Z"`: keep what precedes the fraction.
        guard text.count == 29 else { return false }
        cachedSecond = second
        cachedPrefix = Array(text[0..<21])
        return true
    }
}
