import WirelensCaptureModel
import WirelensCore

/// The capture document's connections as the schema (docs/capture-schema.md) spells them, written through Codable:
/// the reference the one writer of connections (`CaptureConnectionJSONWriter`) is checked against, byte for byte,
/// over generated connections. Only the tests encode connections this way.
struct ReferenceCaptureDocument: Encodable {
    let report: CaptureReport

    init(_ report: CaptureReport) {
        self.report = report
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CaptureReport.Member.self)
        for member in CaptureReport.Member.allCases {
            if member == .connections {
                try c.encode(report.connections, forKey: member)
            } else {
                try c.encode(report.value(of: member), forKey: member)
            }
        }
    }
}

extension TCPConnection: Encodable {
    private enum Keys: String, CodingKey {
        case index, client, server, clientISN, serverISN, firstPacketAt, lastPacketAt, durationMs, handshake,
             clientToServer, serverToClient, end, closedBy, closeStartedAt, longestSilenceMs, idleGapCount, idleGaps,
             applicationProtocol, tls, http2, notes, exchanges
    }

    private enum HTTP2Keys: String, CodingKey { case clientFrames, serverFrames, streams, maxConcurrentStreams, resetStreams }

    private enum TLSKeys: String, CodingKey {
        case serverName, offeredALPN, version, chosenALPN, cipherSuite, resumed, decryption, decryptionNote,
             exchangesInferred
    }

    private enum HandshakeKeys: String, CodingKey { case synAt, synAckAt, ackAt, rttMs }
    private enum GapKeys: String, CodingKey { case startAt, durationMs }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(index, forKey: .index)
        try c.encode(EndpointCoding(client), forKey: .client)
        try c.encode(EndpointCoding(server), forKey: .server)
        try c.encode(clientISN, forKey: .clientISN)
        try c.encode(serverISN, forKey: .serverISN)
        try c.encode(WallClock.iso8601(micros: firstPacketAt), forKey: .firstPacketAt)
        try c.encode(WallClock.iso8601(micros: lastPacketAt), forKey: .lastPacketAt)
        try c.encode(Format.millis(fromMicros: duration), forKey: .durationMs)
        var h = c.nestedContainer(keyedBy: HandshakeKeys.self, forKey: .handshake)
        try h.encode(synAt.map(WallClock.iso8601(micros:)), forKey: .synAt)
        try h.encode(synAckAt.map(WallClock.iso8601(micros:)), forKey: .synAckAt)
        try h.encode(handshakeAckAt.map(WallClock.iso8601(micros:)), forKey: .ackAt)
        try h.encode(handshakeRoundTrip.map(Format.millis(fromMicros:)), forKey: .rttMs)
        try c.encode(DirectionCoding(stats: clientToServer, duration: duration), forKey: .clientToServer)
        try c.encode(DirectionCoding(stats: serverToClient, duration: duration), forKey: .serverToClient)
        try c.encode(end.rawValue, forKey: .end)
        try c.encode(closedBy?.rawValue, forKey: .closedBy)
        try c.encode(closeStartedAt.map(WallClock.iso8601(micros:)), forKey: .closeStartedAt)
        try c.encode(Format.millis(fromMicros: longestSilence), forKey: .longestSilenceMs)
        try c.encode(idleGapCount, forKey: .idleGapCount)
        var gaps = c.nestedUnkeyedContainer(forKey: .idleGaps)
        for gap in idleGaps {
            var g = gaps.nestedContainer(keyedBy: GapKeys.self)
            try g.encode(WallClock.iso8601(micros: gap.startAt), forKey: .startAt)
            try g.encode(Format.millis(fromMicros: gap.duration), forKey: .durationMs)
        }
        try c.encode(applicationProtocol, forKey: .applicationProtocol)
        if let tls {
            var t = c.nestedContainer(keyedBy: TLSKeys.self, forKey: .tls)
            try t.encode(tls.serverName, forKey: .serverName)
            try t.encode(tls.offeredALPN, forKey: .offeredALPN)
            try t.encode(tls.version, forKey: .version)
            try t.encode(tls.chosenALPN, forKey: .chosenALPN)
            try t.encode(tls.cipherSuite, forKey: .cipherSuite)
            try t.encode(tls.resumed, forKey: .resumed)
            try t.encode(tls.decryption.rawValue, forKey: .decryption)
            try t.encode(tls.decryptionNote, forKey: .decryptionNote)
            try t.encode(tls.exchangesInferred, forKey: .exchangesInferred)
        } else {
            try c.encodeNil(forKey: .tls)
        }
        if let http2 {
            var h = c.nestedContainer(keyedBy: HTTP2Keys.self, forKey: .http2)
            try h.encode(http2.clientFrames, forKey: .clientFrames)
            try h.encode(http2.serverFrames, forKey: .serverFrames)
            try h.encode(http2.streams, forKey: .streams)
            try h.encode(http2.maxConcurrentStreams, forKey: .maxConcurrentStreams)
            try h.encode(http2.resetStreams, forKey: .resetStreams)
        } else {
            try c.encodeNil(forKey: .http2)
        }
        try c.encode(notes, forKey: .notes)
        try c.encode(exchanges, forKey: .exchanges)
    }
}

/// One direction's figures, with its throughput over the connection's duration.
private struct DirectionCoding: Encodable {
    let stats: DirectionStats
    let duration: Int64
    private enum Keys: String, CodingKey {
        case packets, bytes, wireBytes, bytesPerSecond, retransmissions, outOfOrder, keepAlives, zeroWindow,
             windowFull, resets, captureGaps, captureGapBytes, truncatedBytes, inFlightMax, windowAtInFlightMax,
             advertisedWindowMax
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(stats.packets, forKey: .packets)
        try c.encode(stats.bytes, forKey: .bytes)
        try c.encode(stats.wireBytes, forKey: .wireBytes)
        try c.encode(TCPConnection.throughput(stats.bytes, over: duration).map { ($0 * 10).rounded() / 10 },
                     forKey: .bytesPerSecond)
        try c.encode(stats.retransmissions, forKey: .retransmissions)
        try c.encode(stats.outOfOrder, forKey: .outOfOrder)
        try c.encode(stats.keepAlives, forKey: .keepAlives)
        try c.encode(stats.zeroWindow, forKey: .zeroWindow)
        try c.encode(stats.windowFull, forKey: .windowFull)
        try c.encode(stats.resets, forKey: .resets)
        try c.encode(stats.captureGaps, forKey: .captureGaps)
        try c.encode(stats.captureGapBytes, forKey: .captureGapBytes)
        try c.encode(stats.truncatedBytes, forKey: .truncatedBytes)
        try c.encode(stats.inFlightMax, forKey: .inFlightMax)
        try c.encode(stats.windowAtInFlightMax, forKey: .windowAtInFlightMax)
        try c.encode(stats.advertisedWindowMax, forKey: .advertisedWindowMax)
    }
}

extension HTTPExchange: Encodable {
    private enum Keys: String, CodingKey {
        case index, method, target, httpVersion, statusCode, interimStatuses, interimAt, requestStartAt,
             requestEndAt, responseStartAt, responseEndAt, waitMs, requestHeaderBytes, requestBodyBytes,
             responseHeaderBytes, responseBodyBytes, pipelined, pipelineDepth, stream, inferred, cutShort,
             complete
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(index, forKey: .index)
        try c.encode(method, forKey: .method)
        try c.encode(target, forKey: .target)
        try c.encode(httpVersion, forKey: .httpVersion)
        try c.encode(statusCode, forKey: .statusCode)
        try c.encode(interimStatuses, forKey: .interimStatuses)
        try c.encode(interimAt.map(WallClock.iso8601(micros:)), forKey: .interimAt)
        try c.encode(requestStartAt.map(WallClock.iso8601(micros:)), forKey: .requestStartAt)
        try c.encode(requestEndAt.map(WallClock.iso8601(micros:)), forKey: .requestEndAt)
        try c.encode(responseStartAt.map(WallClock.iso8601(micros:)), forKey: .responseStartAt)
        try c.encode(responseEndAt.map(WallClock.iso8601(micros:)), forKey: .responseEndAt)
        try c.encode(wait.map(Format.millis(fromMicros:)), forKey: .waitMs)
        try c.encode(requestHeaderBytes, forKey: .requestHeaderBytes)
        try c.encode(requestBodyBytes, forKey: .requestBodyBytes)
        try c.encode(responseHeaderBytes, forKey: .responseHeaderBytes)
        try c.encode(responseBodyBytes, forKey: .responseBodyBytes)
        try c.encode(pipelined, forKey: .pipelined)
        try c.encode(pipelineDepth, forKey: .pipelineDepth)
        try c.encode(stream, forKey: .stream)
        try c.encode(inferred, forKey: .inferred)
        try c.encode(cutShort, forKey: .cutShort)
        try c.encode(complete, forKey: .complete)
    }
}
