import WirelensCaptureModel
import WirelensCore

/// Writes a capture's connections (with their exchanges) as compact JSON directly into bytes: the only writer of
/// the schema's connections (docs/capture-schema.md), held to the tests' reference encoding byte for byte.
///
/// A capture of a gigabyte holds hundreds of thousands of exchanges; their JSON is most of the analysis's
/// output, so it is written field by field with keys as static text, through a `JSONByteCursor` straight into
/// the array's spare capacity: a connection's head (everything but its exchanges) at once, then its exchanges in
/// runs, each exchange bounded beforehand from its strings' lengths. `CaptureJSONWriterTests` holds the two paths
/// to the same output, `CaptureJSONWriterValueTests` the edges of the shortcuts (repeated instants, strings
/// copied eight bytes at a time, the usual method and version as static text) to Foundation's reading of them.
package struct CaptureConnectionJSONWriter {
    /// The second of the last instant written, and its text up to the fraction (`"YYYY-MM-DDTHH:MM:SS.`, 21
    /// bytes, in three words): the instants of a capture come in runs within the same second.
    private var cachedSecond: Int64 = .min
    private var cachedPrefix: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// The last instant written (in `cachedSecond`) and the word of its fraction's text (`JSONByteCursor.fraction`):
    /// an exchange's instants often repeat the one before (a request's start and end, in one packet).
    private var lastInstant: Int64 = 0
    private var lastFraction: UInt64 = 0

    package init() {
        _ = remember(lastInstant)
    }

    /// Appends one connection as a compact JSON object.
    package mutating func append(_ c: TCPConnection, to bytes: inout [UInt8]) {
        bytes.appendJSON(bound: Self.headBound(c)) { head(c, &$0) }
        c.exchanges.withUnsafeBufferPointer { exchanges in
            // Read in place: a copy of each would retain and release its strings.
            guard let first = exchanges.baseAddress else { return }
            var start = 0
            while start < exchanges.count {
                // A run of exchanges reserved for at once: up to 64 KiB of bounds (or one exchange's).
                var end = start, bound = 0
                repeat {
                    bound &+= Self.exchangeBound(first + end)
                    end += 1
                } while end < exchanges.count && bound < Self.runBound
                bytes.appendJSON(bound: bound) { out in
                    for i in start..<end {
                        if i > 0 { out.byte(UInt8(ascii: ",")) }
                        exchange(first + i, &out)
                    }
                }
                start = end
            }
        }
        bytes.append(UInt8(ascii: "]"))
        bytes.append(UInt8(ascii: "}"))
    }

    /// The bytes reserved at once for a run of exchanges (unless one alone may take more).
    private static let runBound = 1 << 16

    /// The most bytes `head` writes: its keys, numbers and instants stay under 4 KB; the rest is strings.
    private static func headBound(_ c: TCPConnection) -> Int {
        var bound = 4096 + 128 * c.idleGaps.count + escapedBound(c.applicationProtocol)
        for note in c.notes { bound += 1 + escapedBound(note) }
        if let tls = c.tls {
            bound += escapedBound(tls.serverName) + escapedBound(tls.version) + escapedBound(tls.chosenALPN)
                + escapedBound(tls.cipherSuite) + escapedBound(tls.decryptionNote) + escapedBound(tls.decryption.rawValue)
            for alpn in tls.offeredALPN { bound += 1 + escapedBound(alpn) }
        }
        return bound
    }

    /// The most bytes `exchange` writes: its keys, numbers and instants stay under 1 KB; the rest is strings.
    private static func exchangeBound(_ e: UnsafePointer<HTTPExchange>) -> Int {
        1024 &+ 21 &* e.pointee.interimStatuses.count &+ escapedBound(e.pointee.method)
            &+ escapedBound(e.pointee.target) &+ escapedBound(e.pointee.httpVersion)
    }

    /// The most bytes `value` takes as a JSON string (every UTF-8 byte escaped as `\u00XX`, and the quotes).
    /// Wrapping arithmetic: a string's length is far below 2^60.
    private static func escapedBound(_ value: String?) -> Int {
        guard let value else { return 0 }
        return 6 &* value.utf8.count &+ 2
    }

    /// The connection up to its exchanges' opening bracket.
    private mutating func head(_ c: TCPConnection, _ out: inout JSONByteCursor) {
        out.raw("{\"index\":"); out.int(Int64(c.index))
        out.raw(",\"client\":"); Self.endpoint(c.client, &out)
        out.raw(",\"server\":"); Self.endpoint(c.server, &out)
        out.raw(",\"clientISN\":"); Self.unsigned(c.clientISN, &out)
        out.raw(",\"serverISN\":"); Self.unsigned(c.serverISN, &out)
        out.raw(",\"firstPacketAt\":"); instant(c.firstPacketAt, &out)
        out.raw(",\"lastPacketAt\":"); instant(c.lastPacketAt, &out)
        out.raw(",\"durationMs\":"); out.millis(c.duration)
        out.raw(",\"handshake\":{\"synAt\":"); instant(c.synAt, &out)
        out.raw(",\"synAckAt\":"); instant(c.synAckAt, &out)
        out.raw(",\"ackAt\":"); instant(c.handshakeAckAt, &out)
        out.raw(",\"rttMs\":"); Self.millis(c.handshakeRoundTrip, &out)
        out.raw("},\"clientToServer\":"); Self.direction(c.clientToServer, duration: c.duration, &out)
        out.raw(",\"serverToClient\":"); Self.direction(c.serverToClient, duration: c.duration, &out)
        out.raw(",\"end\":"); out.string(c.end.rawValue)
        out.raw(",\"closedBy\":"); Self.string(c.closedBy?.rawValue, &out)
        out.raw(",\"closeStartedAt\":"); instant(c.closeStartedAt, &out)
        out.raw(",\"longestSilenceMs\":"); out.millis(c.longestSilence)
        out.raw(",\"idleGapCount\":"); out.int(Int64(c.idleGapCount))
        out.raw(",\"idleGaps\":[")
        for (i, gap) in c.idleGaps.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.raw("{\"startAt\":"); instant(gap.startAt, &out)
            out.raw(",\"durationMs\":"); out.millis(gap.duration)
            out.byte(UInt8(ascii: "}"))
        }
        out.raw("],\"applicationProtocol\":"); Self.string(c.applicationProtocol, &out)
        out.raw(",\"tls\":")
        if let tls = c.tls {
            out.raw("{\"serverName\":"); Self.string(tls.serverName, &out)
            out.raw(",\"offeredALPN\":"); Self.strings(tls.offeredALPN, &out)
            out.raw(",\"version\":"); Self.string(tls.version, &out)
            out.raw(",\"chosenALPN\":"); Self.string(tls.chosenALPN, &out)
            out.raw(",\"cipherSuite\":"); Self.string(tls.cipherSuite, &out)
            out.raw(",\"resumed\":")
            if let resumed = tls.resumed { out.bool(resumed) } else { out.raw("null") }
            out.raw(",\"decryption\":"); out.string(tls.decryption.rawValue)
            out.raw(",\"decryptionNote\":"); Self.string(tls.decryptionNote, &out)
            out.raw(",\"exchangesInferred\":"); out.bool(tls.exchangesInferred)
            out.byte(UInt8(ascii: "}"))
        } else {
            out.raw("null")
        }
        out.raw(",\"http2\":")
        if let h = c.http2 {
            out.raw("{\"clientFrames\":"); out.int(Int64(h.clientFrames))
            out.raw(",\"serverFrames\":"); out.int(Int64(h.serverFrames))
            out.raw(",\"streams\":"); out.int(Int64(h.streams))
            out.raw(",\"maxConcurrentStreams\":"); out.int(Int64(h.maxConcurrentStreams))
            out.raw(",\"resetStreams\":"); out.int(Int64(h.resetStreams))
            out.byte(UInt8(ascii: "}"))
        } else {
            out.raw("null")
        }
        out.raw(",\"notes\":"); Self.strings(c.notes, &out)
        out.raw(",\"exchanges\":[")
    }

    /// One exchange. Keys and the usual values next to them (`[]`, `null`, `false`) go in runs of static text;
    /// the usual method and version are static text too, recognised by a comparison of their strings' bits.
    private mutating func exchange(_ e: UnsafePointer<HTTPExchange>, _ out: inout JSONByteCursor) {
        out.raw("{\"index\":"); out.int(Int64(e.pointee.index))
        out.raw(",\"method\":"); Self.string(e.pointee.method, usually: "GET", quoted: "\"GET\"", &out)
        out.raw(",\"target\":")
        if let target = e.pointee.target { out.string(target) } else { out.raw("null") }
        out.raw(",\"httpVersion\":")
        Self.string(e.pointee.httpVersion, usually: "HTTP/1.1", quoted: "\"HTTP/1.1\"", &out)
        if let status = e.pointee.statusCode {
            out.raw(",\"statusCode\":"); out.int(Int64(status))
        } else {
            out.raw(",\"statusCode\":null")
        }
        if e.pointee.interimStatuses.isEmpty && e.pointee.interimAt == nil {
            out.raw(",\"interimStatuses\":[],\"interimAt\":null,\"requestStartAt\":")
        } else {
            out.raw(",\"interimStatuses\":[")
            for (i, status) in e.pointee.interimStatuses.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.int(Int64(status))
            }
            out.raw("],\"interimAt\":"); instant(e.pointee.interimAt, &out)
            out.raw(",\"requestStartAt\":")
        }
        instant(e.pointee.requestStartAt, &out)
        out.raw(",\"requestEndAt\":"); instant(e.pointee.requestEndAt, &out)
        out.raw(",\"responseStartAt\":"); instant(e.pointee.responseStartAt, &out)
        out.raw(",\"responseEndAt\":"); instant(e.pointee.responseEndAt, &out)
        out.raw(",\"waitMs\":"); Self.millis(e.pointee.wait, &out)
        out.raw(",\"requestHeaderBytes\":"); out.int(Int64(e.pointee.requestHeaderBytes))
        out.raw(",\"requestBodyBytes\":"); out.int(e.pointee.requestBodyBytes)
        out.raw(",\"responseHeaderBytes\":"); out.int(Int64(e.pointee.responseHeaderBytes))
        out.raw(",\"responseBodyBytes\":"); out.int(e.pointee.responseBodyBytes)
        if e.pointee.pipelined {
            out.raw(",\"pipelined\":true,\"pipelineDepth\":")
        } else {
            out.raw(",\"pipelined\":false,\"pipelineDepth\":")
        }
        out.int(Int64(e.pointee.pipelineDepth))
        if let stream = e.pointee.stream {
            out.raw(",\"stream\":"); out.int(Int64(stream))
            out.raw(",\"inferred\":")
        } else {
            out.raw(",\"stream\":null,\"inferred\":")
        }
        if e.pointee.inferred { out.raw("true,\"cutShort\":") } else { out.raw("false,\"cutShort\":") }
        if e.pointee.cutShort { out.raw("true,\"complete\":") } else { out.raw("false,\"complete\":") }
        if e.pointee.complete { out.raw("true}") } else { out.raw("false}") }
    }

    /// One direction's figures, with its throughput over the connection's duration.
    private static func direction(_ d: DirectionStats, duration: Int64, _ out: inout JSONByteCursor) {
        out.raw("{\"packets\":"); out.int(Int64(d.packets))
        out.raw(",\"bytes\":"); out.int(d.bytes)
        out.raw(",\"wireBytes\":"); out.int(d.wireBytes)
        out.raw(",\"bytesPerSecond\":")
        if let speed = TCPConnection.throughput(d.bytes, over: duration).map({ ($0 * 10).rounded() / 10 }) {
            if !out.tenths(speed) {
                out.appending { if !JSONBytes.appendDouble(speed, to: &$0) { $0.append(contentsOf: "null".utf8) } }
            }
        } else {
            out.raw("null")
        }
        // Most directions have none of these events: one static run.
        if d.retransmissions | d.outOfOrder | d.keepAlives | d.zeroWindow | d.windowFull | d.resets | d.captureGaps == 0
            && d.captureGapBytes | d.truncatedBytes == 0 {
            out.raw("""
                ,"retransmissions":0,"outOfOrder":0,"keepAlives":0,"zeroWindow":0,"windowFull":0,"resets":0,\
                "captureGaps":0,"captureGapBytes":0,"truncatedBytes":0
                """)
            windows(d, &out)
            return
        }
        out.raw(",\"retransmissions\":"); out.int(Int64(d.retransmissions))
        out.raw(",\"outOfOrder\":"); out.int(Int64(d.outOfOrder))
        out.raw(",\"keepAlives\":"); out.int(Int64(d.keepAlives))
        out.raw(",\"zeroWindow\":"); out.int(Int64(d.zeroWindow))
        out.raw(",\"windowFull\":"); out.int(Int64(d.windowFull))
        out.raw(",\"resets\":"); out.int(Int64(d.resets))
        out.raw(",\"captureGaps\":"); out.int(Int64(d.captureGaps))
        out.raw(",\"captureGapBytes\":"); out.int(d.captureGapBytes)
        out.raw(",\"truncatedBytes\":"); out.int(d.truncatedBytes)
        windows(d, &out)
    }

    /// A direction's window figures (each null when unknown) and the object's closing brace.
    private static func windows(_ d: DirectionStats, _ out: inout JSONByteCursor) {
        out.raw(",\"inFlightMax\":"); optional(d.inFlightMax, &out)
        out.raw(",\"windowAtInFlightMax\":"); optional(d.windowAtInFlightMax, &out)
        out.raw(",\"advertisedWindowMax\":"); optional(d.advertisedWindowMax, &out)
        out.byte(UInt8(ascii: "}"))
    }

    private static func optional(_ value: Int64?, _ out: inout JSONByteCursor) {
        if let value { out.int(value) } else { out.raw("null") }
    }

    private static func endpoint(_ e: Endpoint, _ out: inout JSONByteCursor) {
        out.raw("{\"address\":")
        if e.address.isIPv6 { out.string(e.address.description) } else { out.ipv4String(e.address.low) }
        out.raw(",\"port\":"); out.unsigned(UInt64(e.port))
        out.byte(UInt8(ascii: "}"))
    }

    private static func strings(_ values: [String], _ out: inout JSONByteCursor) {
        out.byte(UInt8(ascii: "["))
        for (i, value) in values.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.string(value)
        }
        out.byte(UInt8(ascii: "]"))
    }

    private static func string(_ value: String?, _ out: inout JSONByteCursor) {
        if let value { out.string(value) } else { out.raw("null") }
    }

    /// `value` as `string` writes it, given as static text (`quoted`) when it is `common`.
    @inline(__always)
    private static func string(_ value: String?, usually common: String, quoted: StaticString,
                               _ out: inout JSONByteCursor) {
        if value == common { out.raw(quoted) } else { string(value, &out) }
    }

    private static func unsigned(_ value: UInt32?, _ out: inout JSONByteCursor) {
        if let value { out.unsigned(UInt64(value)) } else { out.raw("null") }
    }

    @inline(__always)
    private static func millis(_ micros: Int64?, _ out: inout JSONByteCursor) {
        if let micros { out.millis(micros) } else { out.raw("null") }
    }

    /// An instant (or null) as `JSONBytes.appendInstant` writes it: the last one's text again, or the text of its
    /// second followed by its fraction's.
    @inline(__always)
    private mutating func instant(_ micros: Int64?, _ out: inout JSONByteCursor) {
        guard let micros else {
            out.raw("null")
            return
        }
        guard micros == lastInstant || remember(micros) else {
            Self.uncachedInstant(micros, &out)
            return
        }
        // The three words hold 24 bytes: the fraction's word overwrites the 3 past the prefix.
        out.words(cachedPrefix, keeping: 21)
        out.word(lastFraction)
    }

    /// Makes `micros` the last instant: its second's text cached, its fraction's word made; false when its text
    /// is not of the usual length (a year of other than four digits: no cache).
    @inline(__always)
    private mutating func remember(_ micros: Int64) -> Bool {
        // The second, rounded down (without overflow, whatever the instant).
        let second = micros >= 0 ? micros / 1_000_000 : -1 - (-1 - micros) / 1_000_000
        guard second == cachedSecond || cachePrefix(of: second) else { return false }
        lastInstant = micros
        lastFraction = JSONByteCursor.fraction(micros &- second &* 1_000_000)
        return true
    }

    /// An instant written by the shared writer, for the years that do not take four digits.
    private static func uncachedInstant(_ micros: Int64, _ out: inout JSONByteCursor) {
        out.appending { JSONBytes.appendInstant(micros: micros, to: &$0) }
    }

    /// Makes `cachedPrefix` the text of `second` up to the fraction; false when its text is not of the usual
    /// length (a year of other than four digits: no cache).
    private mutating func cachePrefix(of second: Int64) -> Bool {
        // Years 0 to 9999 (the text's usual length); beyond, `second * 1_000_000` may overflow.
        guard second >= -62_167_219_200, second < 253_402_300_800 else { return false }
        var text: [UInt8] = []
        JSONBytes.appendInstant(micros: second * 1_000_000, to: &text)
        // `"YYYY-MM-DDTHH:MM:SS.000000Z"`: keep what precedes the fraction (and 3 bytes more, to fill three words).
        guard text.count == 29 else { return false }
        cachedSecond = second
        text.withUnsafeBytes { raw in
            cachedPrefix = (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                            raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        }
        return true
    }
}
