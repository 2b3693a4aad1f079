import WirelensCore

/// JSON of the capture report, with the probe report's conventions: instants as RFC 3339 text with
/// microseconds, durations in milliseconds (`…Ms`), bytes as integers, unknown values as null.
extension CaptureReport {
    /// The document's members, in their order. The connections come right after the file's description and
    /// before the totals, so that a document can be written while the capture is read (`CaptureJSONRenderer`):
    /// the members before `connections` are known before the first packet, those after it only at the end.
    public enum Member: String, CodingKey, CaseIterable, Sendable {
        case schema, tool, file, filter, linkType, snapshotLength, connections, firstPacketAt, lastPacketAt, packets,
             readError, interrupted, caveats, summary, verification

        /// The members before `connections`.
        public static let head: [Member] = Array(allCases.prefix { $0 != .connections })
        /// The members after `connections`.
        public static let tail: [Member] = Array(allCases.drop { $0 != .connections }.dropFirst())
    }

    /// The value of one member of the document (the one definition of what each member holds); `connections`
    /// has a writer of its own (`CaptureConnectionJSONWriter`), and its value here refuses to be encoded.
    public func value(of member: Member) -> any Encodable {
        switch member {
        case .schema: schema
        case .tool: ToolCoding(version: toolVersion)
        case .file: file
        case .filter: filter
        case .linkType: linkType.rawValue
        case .snapshotLength: snapshotLength
        case .connections: ConnectionsWrittenApart()
        case .firstPacketAt: firstPacketAt.map(WallClock.iso8601(micros:))
        case .lastPacketAt: lastPacketAt.map(WallClock.iso8601(micros:))
        case .packets: packets
        case .readError: readError
        case .interrupted: interrupted
        case .caveats: caveats
        case .summary: summary
        case .verification: verification
        }
    }
}

/// The value of `connections`: an encoding error, as the connections have one writer, `CaptureConnectionJSONWriter`.
private struct ConnectionsWrittenApart: Encodable {
    func encode(to encoder: Encoder) throws {
        throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath,
                                                     debugDescription: "connections are written by CaptureConnectionJSONWriter"))
    }
}

/// The tool that wrote a document: `{"name": "wirelens", "version"}`.
private struct ToolCoding: Encodable {
    let version: String
    private enum Keys: String, CodingKey { case name, version }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("wirelens", forKey: .name)
        try c.encode(version, forKey: .version)
    }
}

extension PacketCounts: Encodable {
    private enum Keys: String, CodingKey { case total, tcp, other, undecodable, cutBySnapshot, wireBytes }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(total, forKey: .total)
        try c.encode(tcp, forKey: .tcp)
        try c.encode(other, forKey: .other)
        try c.encode(undecodable, forKey: .undecodable)
        try c.encode(cutBySnapshot, forKey: .cutBySnapshot)
        try c.encode(wireBytes, forKey: .wireBytes)
    }
}

extension CaptureSummary: Encodable {
    private enum Keys: String, CodingKey {
        case connections, connectionsWithHandshake, maxConcurrentConnections, servers, exchanges, completeExchanges,
             pipelinedRequests, maxPipelineDepth, maxExchangesPerConnection, clientBytes, serverBytes,
             retransmissions, outOfOrder, zeroWindow, windowFull, resets, captureGaps, captureGapBytes
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(connections, forKey: .connections)
        try c.encode(connectionsWithHandshake, forKey: .connectionsWithHandshake)
        try c.encode(maxConcurrentConnections, forKey: .maxConcurrentConnections)
        try c.encode(servers, forKey: .servers)
        try c.encode(exchanges, forKey: .exchanges)
        try c.encode(completeExchanges, forKey: .completeExchanges)
        try c.encode(pipelinedRequests, forKey: .pipelinedRequests)
        try c.encode(maxPipelineDepth, forKey: .maxPipelineDepth)
        try c.encode(maxExchangesPerConnection, forKey: .maxExchangesPerConnection)
        try c.encode(clientBytes, forKey: .clientBytes)
        try c.encode(serverBytes, forKey: .serverBytes)
        try c.encode(retransmissions, forKey: .retransmissions)
        try c.encode(outOfOrder, forKey: .outOfOrder)
        try c.encode(zeroWindow, forKey: .zeroWindow)
        try c.encode(windowFull, forKey: .windowFull)
        try c.encode(resets, forKey: .resets)
        try c.encode(captureGaps, forKey: .captureGaps)
        try c.encode(captureGapBytes, forKey: .captureGapBytes)
    }
}

extension ServerSummary: Encodable {
    private enum Keys: String, CodingKey { case address, port, connections, maxConcurrent, exchanges }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(server.address.description, forKey: .address)
        try c.encode(server.port, forKey: .port)
        try c.encode(connections, forKey: .connections)
        try c.encode(maxConcurrent, forKey: .maxConcurrent)
        try c.encode(exchanges, forKey: .exchanges)
    }
}

/// An endpoint as `{"address", "port"}`.
package struct EndpointCoding: Encodable {
    let endpoint: Endpoint
    package init(_ endpoint: Endpoint) { self.endpoint = endpoint }
    private enum Keys: String, CodingKey { case address, port }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(endpoint.address.description, forKey: .address)
        try c.encode(endpoint.port, forKey: .port)
    }
}
