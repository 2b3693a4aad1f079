import WirelensCaptureModel

extension CaptureSummary {
    /// The summary of `connections`.
    package init(of connections: [TCPConnection]) {
        var accumulator = Accumulator()
        for c in connections { accumulator.opened(c) }
        for c in connections { accumulator.add(c) }
        self = accumulator.summary
    }

    /// Totals built connection by connection as they finish, in memory that grows with the servers, not with
    /// the connections: the concurrency events are folded as the capture's time moves on.
    struct Accumulator {
        private var totals = CaptureSummary()
        private var peak = ConcurrencyPeak()
        private var perServer: [Endpoint: (connections: Int, exchanges: Int, peak: ConcurrencyPeak)] = [:]

        /// Concurrency events not yet folded, over all servers.
        var heldEvents: Int { perServer.values.reduce(peak.heldEvents) { $0 + $1.peak.heldEvents } }

        /// A connection began (its first packet).
        mutating func opened(_ c: TCPConnection) {
            opened(at: c.firstPacketAt, server: c.server)
        }

        /// A connection to `server` began at `time` (its first packet).
        mutating func opened(at time: Int64, server: Endpoint) {
            peak.opened(at: time)
            perServer[server, default: (0, 0, ConcurrencyPeak())].peak.opened(at: time)
        }

        /// A connection turned out to have its roles the other way round: it was opened under `oldServer`.
        mutating func moved(_ c: TCPConnection, from oldServer: Endpoint) {
            perServer[oldServer]?.peak.closed(at: c.firstPacketAt)
            perServer[c.server, default: (0, 0, ConcurrencyPeak())].peak.opened(at: c.firstPacketAt)
        }

        /// A connection finished: its figures join the totals.
        mutating func add(_ c: TCPConnection) {
            add(c, exchanges: ExchangeTally(of: c.exchanges))
        }

        /// A connection finished whose exchanges are `tally` (its own list may hold none of them: `HTTP1Exchanges`
        /// folds those of a connection that is not handed over): its figures join the totals.
        mutating func add(_ c: TCPConnection, exchanges tally: ExchangeTally) {
            totals.connections += 1
            if c.handshakeSeen { totals.connectionsWithHandshake += 1 }
            peak.closed(at: c.inUseUntil)
            Self.count(c, exchanges: tally.count, in: &perServer[c.server, default: (0, 0, ConcurrencyPeak())])
            totals.exchanges += tally.count
            totals.maxExchangesPerConnection = max(totals.maxExchangesPerConnection, tally.count)
            if let tls = c.tls {
                totals.tlsConnections += 1
                if tls.exchangesInferred {
                    totals.inferredConnections += 1
                    totals.inferredExchanges += tally.count
                    totals.notDecrypted[tls.decryption.rawValue, default: 0] += 1
                }
            }
            totals.http1Exchanges += tally.http1
            totals.completeExchanges += tally.complete
            totals.pipelinedRequests += tally.pipelined
            totals.maxPipelineDepth = max(totals.maxPipelineDepth, tally.maxPipelineDepth)
            for (d, isClient) in [(c.clientToServer, true), (c.serverToClient, false)] {
                if isClient { totals.clientBytes += d.bytes } else { totals.serverBytes += d.bytes }
                totals.retransmissions += d.retransmissions
                totals.outOfOrder += d.outOfOrder
                totals.zeroWindow += d.zeroWindow
                totals.windowFull += d.windowFull
                totals.resets += d.resets
                totals.captureGaps += d.captureGaps
                totals.captureGapBytes += d.captureGapBytes
            }
        }

        /// A finished connection `c` with `exchanges` counted in its server's figures (one lookup of the server).
        private static func count(_ c: TCPConnection, exchanges: Int,
                                  in server: inout (connections: Int, exchanges: Int, peak: ConcurrencyPeak)) {
            server.connections += 1
            server.exchanges += exchanges
            server.peak.closed(at: c.inUseUntil)
        }

        /// Folds the concurrency events before `watermark` (no connection still to come starts, and none
        /// still open stops being in use, before it).
        mutating func fold(before watermark: Int64) {
            peak.fold(before: watermark)
            for key in perServer.keys { perServer[key]?.peak.fold(before: watermark) }
        }

        /// The summary of what was added.
        var summary: CaptureSummary {
            var result = totals
            result.maxConcurrentConnections = peak.peak
            // A server left with no connection was one whose connection's roles turned out the other way (`moved`).
            result.servers = perServer.filter { $0.value.connections > 0 }.map { server, value in
                ServerSummary(server: server, connections: value.connections, maxConcurrent: value.peak.peak,
                              exchanges: value.exchanges)
            }.sorted { $0.server < $1.server }
            return result
        }
    }
}

extension CaptureSummary {
    /// The highest running sum of +1 (open) / -1 (close) events; at equal times closes count first.
    static func peak(_ events: [(Int64, Int)]) -> Int {
        var peak = ConcurrencyPeak()
        for (time, delta) in events {
            if delta > 0 { peak.opened(at: time) } else { peak.closed(at: time) }
        }
        return peak.peak
    }
}
