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

    /// One exchange, read in place (a copy of each would retain and release its strings).
    private mutating func exchange(_ pointer: UnsafePointer<HTTPExchange>, _ bytes: inout [UInt8]) {
        Self.raw("{\"index\":", &bytes); JSONBytes.appendInt(Int64(pointer.pointee.index), to: &bytes)
        Self.raw(",\"method\":", &bytes); Self.string(pointer.pointee.method, &bytes)
        Self.raw(",\"target\":", &bytes); Self.string(pointer.pointee.target, &bytes)
        Self.raw(",\"httpVersion\":", &bytes); Self.string(pointer.pointee.httpVersion, &bytes)
        Self.raw(",\"statusCode\":", &bytes); Self.int(pointer.pointee.statusCode, &bytes)
        Self.raw(",\"interimStatuses\":[", &bytes)
        for (i, status) in pointer.pointee.interimStatuses.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.appendInt(Int64(status), to: &bytes)
        }
        Self.raw("],\"interimAt\":", &bytes); instant(pointer.pointee.interimAt, &bytes)
        Self.raw(",\"requestStartAt\":", &bytes); instant(pointer.pointee.requestStartAt, &bytes)
        Self.raw(",\"requestEndAt\":", &bytes); instant(pointer.pointee.requestEndAt, &bytes)
        Self.raw(",\"responseStartAt\":", &bytes); instant(pointer.pointee.responseStartAt, &bytes)
        Self.raw(",\"responseEndAt\":", &bytes); instant(pointer.pointee.responseEndAt, &bytes)
        Self.raw(",\"waitMs\":", &bytes); Self.millis(pointer.pointee.wait, &bytes)
        Self.raw(",\"requestHeaderBytes\":", &bytes); JSONBytes.appendInt(Int64(pointer.pointee.requestHeaderBytes), to: &bytes)
        Self.raw(",\"requestBodyBytes\":", &bytes); JSONBytes.appendInt(pointer.pointee.requestBodyBytes, to: &bytes)
        Self.raw(",\"responseHeaderBytes\":", &bytes); JSONBytes.appendInt(Int64(pointer.pointee.responseHeaderBytes), to: &bytes)
        Self.raw(",\"responseBodyBytes\":", &bytes); JSONBytes.appendInt(pointer.pointee.responseBodyBytes, to: &bytes)
        Self.raw(pointer.pointee.pipelined ? ",\"pipelined\":true,\"pipelineDepth\":" : ",\"pipelined\":false,\"pipelineDepth\":", &bytes)
        JSONBytes.appendInt(Int64(pointer.pointee.pipelineDepth), to: &bytes)
        Self.raw(",\"stream\":", &bytes); Self.int(pointer.pointee.stream, &bytes)
        Self.raw(pointer.pointee.inferred ? ",\"inferred\":true" : ",\"inferred\":false", &bytes)
        Self.raw(pointer.pointee.cutShort ? ",\"cutShort\":true" : ",\"cutShort\":false", &bytes)
        Self.raw(pointer.pointee.complete ? ",\"complete\":true}" : ",\"complete\":false}", &bytes)
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
        let second = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        if second != cachedSecond {
            var text: [UInt8] = []
            JSONBytes.appendInstant(micros: second * 1_000_000, to: &text)
            // `"YYYY-MM-DDTHH:MM:SS.000000Z"`: keep what precedes the fraction (other years: no cache).
            guard text.count == 29 else {
                JSONBytes.appendInstant(micros: micros, to: &bytes)
                return
            }
            cachedSecond = second
            cachedPrefix = Array(text[0..<21])
        }
        bytes.append(contentsOf: cachedPrefix)
        var fraction = micros - second * 1_000_000
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            for i in stride(from: 5, through: 0, by: -1) {
                d[i] = UInt8(48 + fraction % 10)
                fraction /= 10
            }
            bytes.append(contentsOf: d)
        }
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }
}
