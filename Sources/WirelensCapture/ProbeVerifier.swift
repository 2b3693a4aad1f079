import WirelensCaptureModel
import WirelensCore

/// Checks a probe report (`wirelens.report/1`) against the capture of its traffic.
///
/// Each transaction is joined to a connection by its 4-tuple *and* time: among the connections with that
/// 4-tuple, the one whose lifetime holds the transaction's request (a 4-tuple can carry several connections).
public enum ProbeVerifier {
    /// A connect time agrees with the handshake when they differ by at most this much (µs)...
    public static let connectToleranceFixed = ProbeVerification.connectToleranceFixed
    /// ...plus this fraction of the handshake.
    public static let connectToleranceFraction = ProbeVerification.connectToleranceFraction
    /// Clock slack (µs) when placing a transaction on a connection's lifetime or the run's window.
    public static let clockSlack: Int64 = 1_000
    /// The tolerance as the reports state it.
    public static var toleranceText: String { ProbeVerification.toleranceText }

    /// The verification of `probe` against `capture`'s connections.
    public static func verify(_ probe: Report, against capture: CaptureReport) -> ProbeVerification {
        var result = ProbeVerification()
        let connections = capture.connections
        var byTuple: [String: [Int]] = [:]
        for c in connections { byTuple[tupleKey(c.client, c.server), default: []].append(c.index) }

        // Join every transaction that has a 4-tuple.
        var onConnection: [Int: [Int]] = [:]  // connection -> indices into result.transactions
        var servers = Set<Endpoint>()
        var clients = Set<IPAddress>()
        for task in probe.tasks {
            for (position, tx) in task.transactions.enumerated() {
                var check = ProbeVerification.TransactionCheck(task: task.index, transaction: position, url: tx.url,
                                                               claimedReuse: tx.reusedConnection)
                if tx.openedConnection { result.connectionsOpenedByProbe += 1 }
                guard let local = endpoint(tx.localAddress, tx.localPort),
                      let remote = endpoint(tx.remoteAddress, tx.remotePort) else {
                    result.transactions.append(check)
                    continue
                }
                servers.insert(remote)
                clients.insert(local.address)
                let time = tx.timeline.requestStart ?? tx.timeline.connectEnd ?? tx.timeline.fetchStart
                check.connection = join(time, candidates: byTuple[tupleKey(local, remote)] ?? [], connections)
                if let index = check.connection {
                    onConnection[index, default: []].append(result.transactions.count)
                } else {
                    check.disagreements.append("no connection \(local) → \(remote) on the wire at the time of the request")
                }
                check.probeConnect = tx.timeline.connectEnd.flatMap { end in tx.timeline.connectStart.map { end - $0 } }
                result.transactions.append(check)
            }
        }

        // Per connection: order its transactions by request time, pair them with its exchanges, decide SYN ownership.
        let flat = probe.tasks.flatMap { $0.transactions }
        for (index, members) in onConnection.sorted(by: { $0.key < $1.key }) {
            let c = connections[index]
            let ordered = members.sorted {
                requestTime(flat[$0]) < requestTime(flat[$1])
            }
            let pairsExchanges = pairs(c)
            for (rank, member) in ordered.enumerated() {
                let tx = flat[member]
                var check = result.transactions[member]
                if pairsExchanges && rank < c.exchanges.count { check.exchange = rank }
                if c.handshakeSeen, let syn = c.synAt {
                    check.ownsSYN = rank == 0 && syn >= tx.timeline.fetchStart - clockSlack
                    check.reuseConfirmed = check.ownsSYN == !tx.reusedConnection
                    if check.reuseConfirmed == false {
                        check.disagreements.append(tx.reusedConnection
                            ? "marked reused, but it opened connection #\(index) (its SYN is this transaction's)"
                            : "marked new, but connection #\(index) was opened before it (the SYN belongs to an earlier transaction)")
                    }
                    if check.ownsSYN == true, let probeConnect = check.probeConnect,
                       let wire = c.handshakeTime ?? c.synAckAt.map({ $0 - syn }) {
                        check.wireHandshake = wire
                        let tolerance = connectToleranceFixed + Int64(Double(wire) * connectToleranceFraction)
                        check.connectAgrees = abs(probeConnect - wire) <= tolerance
                        if check.connectAgrees == false {
                            check.disagreements.append("connect time \(DurationText.format(micros: probeConnect)) but "
                                + "the handshake took \(DurationText.format(micros: wire)) on the wire (tolerance \(toleranceText))")
                        }
                    }
                } else if !tx.reusedConnection {
                    check.ownsSYN = nil  // the connection began before the capture: cannot tell
                }
                result.transactions[member] = check
            }
            if pairsExchanges {
                result.requestsPerConnection.append(.init(connection: index, wireExchanges: c.exchanges.count,
                                                          probeTransactions: members.count))
            }
        }

        // Run-level: connections opened, per-host concurrency, stray exchanges.
        let windowStart = probe.startedAt - clockSlack, windowEnd = probe.endedAt + clockSlack
        let inRun = connections.filter { c in
            servers.contains(c.server) && clients.contains(c.client.address)
                && c.firstPacketAt <= windowEnd && c.inUseUntil >= windowStart
        }
        result.connectionsOnWire = inRun.filter { c in c.synAt.map { $0 >= windowStart && $0 <= windowEnd } ?? false }.count
        var limit = probe.configuration.options.maxHostConnections
        if limit == 0 { limit = nil }
        for server in servers.sorted() {
            let mine = inRun.filter { $0.server == server }
            let peak = CaptureSummary.peak(mine.flatMap { [($0.firstPacketAt, 1), ($0.inUseUntil, -1)] })
            result.hosts.append(.init(server: server, connections: mine.count, maxConcurrent: peak, configuredLimit: limit))
        }
        for c in inRun where pairs(c) {
            let used = onConnection[c.index]?.count ?? 0
            for e in c.exchanges.dropFirst(used) {
                result.strayExchanges.append(.init(connection: c.index, exchange: e.index, method: e.method, target: e.target))
            }
        }

        var run: [String] = []
        if result.connectionsOpenedByProbe != result.connectionsOnWire {
            run.append("the probe says it opened \(result.connectionsOpenedByProbe) connections; the wire shows "
                + "\(result.connectionsOnWire) handshakes during the run")
        }
        for host in result.hosts {
            if let limit = host.configuredLimit, host.maxConcurrent > limit {
                run.append("\(host.server): \(host.maxConcurrent) connections at once on the wire, above the limit of \(limit)")
            }
        }
        for use in result.requestsPerConnection where use.wireExchanges < use.probeTransactions {
            run.append("connection #\(use.connection) carried \(use.wireExchanges) exchanges on the wire; the probe "
                + "reports \(use.probeTransactions) transactions on it")
        }
        for stray in result.strayExchanges {
            run.append("exchange \(stray.exchange) on connection #\(stray.connection) (\(stray.method ?? "?") "
                + "\(stray.target ?? "?")) is not explained by any transaction")
        }
        result.disagreements = run + result.transactions.flatMap { check in
            check.disagreements.map { "task \(check.task) transaction \(check.transaction): \($0)" }
        }
        return result
    }

    /// The connection among `candidates` whose lifetime holds `time`; else the nearest one within the clock slack.
    static func join(_ time: Int64, candidates: [Int], _ connections: [TCPConnection]) -> Int? {
        var best: (index: Int, distance: Int64)?
        for i in candidates {
            let c = connections[i]
            let distance = time < c.firstPacketAt ? c.firstPacketAt - time : time > c.lastPacketAt ? time - c.lastPacketAt : 0
            if distance <= clockSlack, distance < best?.distance ?? .max { best = (i, distance) }
        }
        return best?.index
    }

    /// True when the connection's exchanges are read from the wire (HTTP/1.x, h2c), not inferred (TLS).
    private static func pairs(_ c: TCPConnection) -> Bool {
        c.applicationProtocol?.hasPrefix("http/1") == true || c.applicationProtocol == "h2c"
    }

    private static func requestTime(_ tx: TransactionMetrics) -> Int64 {
        tx.timeline.requestStart ?? tx.timeline.responseStart ?? tx.timeline.fetchStart
    }

    private static func endpoint(_ address: String?, _ port: Int?) -> Endpoint? {
        guard let address, let port, let ip = IPAddress(text: address), (0...65535).contains(port) else { return nil }
        return Endpoint(address: ip, port: UInt16(port))
    }

    private static func tupleKey(_ a: Endpoint, _ b: Endpoint) -> String { "\(a)|\(b)" }
}
