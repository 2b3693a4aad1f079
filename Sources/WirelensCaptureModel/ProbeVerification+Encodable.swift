import WirelensCore

/// JSON of the verification, with the report's conventions (durations in ms, unknowns as null).
extension ProbeVerification: Encodable {
    private enum Keys: String, CodingKey {
        case connectTolerance, orderSlackMs, disagreements, connectionsOpenedByProbe, connectionsOnWire, hosts,
             maxConcurrent, configuredTotalLimit, requestsPerConnection, strayExchanges, foreignConnections, transactions,
             notVerifiable
    }

    private enum NotVerifiableKeys: String, CodingKey { case connection, transactions, reason }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(ProbeVerification.toleranceText, forKey: .connectTolerance)
        try c.encode(Format.millis(fromMicros: ProbeVerification.orderSlack), forKey: .orderSlackMs)
        try c.encode(disagreements, forKey: .disagreements)
        try c.encode(connectionsOpenedByProbe, forKey: .connectionsOpenedByProbe)
        try c.encode(connectionsOnWire, forKey: .connectionsOnWire)
        try c.encode(hosts, forKey: .hosts)
        try c.encode(maxConcurrent, forKey: .maxConcurrent)
        try c.encode(configuredTotalLimit, forKey: .configuredTotalLimit)
        try c.encode(requestsPerConnection, forKey: .requestsPerConnection)
        try c.encode(strayExchanges, forKey: .strayExchanges)
        try c.encode(foreignConnections, forKey: .foreignConnections)
        try c.encode(transactions, forKey: .transactions)
        // Only when the run had TLS connections without keys (a clear-text verification is unchanged).
        if !notVerifiable.isEmpty {
            var list = c.nestedUnkeyedContainer(forKey: .notVerifiable)
            for item in notVerifiable {
                var n = list.nestedContainer(keyedBy: NotVerifiableKeys.self)
                try n.encode(item.connection, forKey: .connection)
                try n.encode(item.transactions, forKey: .transactions)
                try n.encode(item.reason, forKey: .reason)
            }
        }
    }
}

extension ProbeVerification.HostCheck: Encodable {
    private enum Keys: String, CodingKey { case address, port, connections, maxConcurrent, configuredLimit }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(server.address.description, forKey: .address)
        try c.encode(server.port, forKey: .port)
        try c.encode(connections, forKey: .connections)
        try c.encode(maxConcurrent, forKey: .maxConcurrent)
        try c.encode(configuredLimit, forKey: .configuredLimit)
    }
}

extension ProbeVerification.ConnectionUse: Encodable {
    private enum Keys: String, CodingKey { case connection, wireExchanges, probeTransactions }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(connection, forKey: .connection)
        try c.encode(wireExchanges, forKey: .wireExchanges)
        try c.encode(probeTransactions, forKey: .probeTransactions)
    }
}

extension ProbeVerification.StrayExchange: Encodable {
    private enum Keys: String, CodingKey { case connection, exchange, method, target, requestStartAt }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(connection, forKey: .connection)
        try c.encode(exchange, forKey: .exchange)
        try c.encode(method, forKey: .method)
        try c.encode(target, forKey: .target)
        try c.encode(requestStartAt.map(WallClock.iso8601(micros:)), forKey: .requestStartAt)
    }
}

extension ProbeVerification.ForeignConnection: Encodable {
    private enum Keys: String, CodingKey { case connection, client, server, firstPacketAt, exchanges, reason }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(connection, forKey: .connection)
        try c.encode(EndpointCoding(client), forKey: .client)
        try c.encode(EndpointCoding(server), forKey: .server)
        try c.encode(WallClock.iso8601(micros: firstPacketAt), forKey: .firstPacketAt)
        try c.encode(exchanges, forKey: .exchanges)
        try c.encode(reason.rawValue, forKey: .reason)
    }
}

extension ProbeVerification.TransactionCheck: Encodable {
    private enum Keys: String, CodingKey {
        case task, transaction, url, claimedReuse, connection, exchange, ownsSYN, reuseConfirmed, probeConnectMs,
             wireHandshakeMs, connectAgrees, instantsInOrder, download, h2Window, disagreements
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(task, forKey: .task)
        try c.encode(transaction, forKey: .transaction)
        try c.encode(url, forKey: .url)
        try c.encode(claimedReuse, forKey: .claimedReuse)
        try c.encode(connection, forKey: .connection)
        try c.encode(exchange, forKey: .exchange)
        try c.encode(ownsSYN, forKey: .ownsSYN)
        try c.encode(reuseConfirmed, forKey: .reuseConfirmed)
        try c.encode(probeConnect.map(Format.millis(fromMicros:)), forKey: .probeConnectMs)
        try c.encode(wireHandshake.map(Format.millis(fromMicros:)), forKey: .wireHandshakeMs)
        try c.encode(connectAgrees, forKey: .connectAgrees)
        try c.encode(instantsInOrder, forKey: .instantsInOrder)
        // Only for a download with a verdict (other transactions' checks are unchanged).
        if let download { try c.encode(download, forKey: .download) }
        // Only for an HTTP/2 upload whose frames were read.
        if let h2Window { try c.encode(h2Window, forKey: .h2Window) }
        try c.encode(disagreements, forKey: .disagreements)
    }
}

extension DownloadWireCheck: Encodable {
    private enum Keys: String, CodingKey {
        case verdict, reading, confirms, finding, inFlightMax, advertisedWindow, advertisedWindowMax, roundTripMs,
             deliveredPerRoundTrip, windowFill, windowFullSegments, retransmissions, outOfOrder, zeroWindows
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(verdict?.rawValue, forKey: .verdict)
        try c.encode(reading.rawValue, forKey: .reading)
        try c.encode(confirms, forKey: .confirms)
        try c.encode(finding, forKey: .finding)
        try c.encode(inFlightMax, forKey: .inFlightMax)
        try c.encode(advertisedWindow, forKey: .advertisedWindow)
        try c.encode(advertisedWindowMax, forKey: .advertisedWindowMax)
        try c.encode(roundTrip.map(Format.millis(fromMicros:)), forKey: .roundTripMs)
        try c.encode(deliveredPerRoundTrip.map { $0.rounded() }, forKey: .deliveredPerRoundTrip)
        try c.encode(windowFill, forKey: .windowFill)
        try c.encode(windowFullSegments, forKey: .windowFullSegments)
        try c.encode(retransmissions, forKey: .retransmissions)
        try c.encode(outOfOrder, forKey: .outOfOrder)
        try c.encode(zeroWindows, forKey: .zeroWindows)
    }
}

extension H2WindowWireCheck: Encodable {
    private enum Keys: String, CodingKey {
        case verdict, windowBound, confirms, finding, initialWindowSize, streamCredit, connectionCredit, roundTripMs,
             bodyRate, windowFill
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(verdict?.rawValue, forKey: .verdict)
        try c.encode(windowBound, forKey: .windowBound)
        try c.encode(confirms, forKey: .confirms)
        try c.encode(finding, forKey: .finding)
        try c.encode(initialWindowSize, forKey: .initialWindowSize)
        try c.encode(streamCredit, forKey: .streamCredit)
        try c.encode(connectionCredit, forKey: .connectionCredit)
        try c.encode(roundTrip.map(Format.millis(fromMicros:)), forKey: .roundTripMs)
        try c.encode(bodyRate.map { $0.rounded() }, forKey: .bodyRate)
        try c.encode(windowFill, forKey: .windowFill)
    }
}
