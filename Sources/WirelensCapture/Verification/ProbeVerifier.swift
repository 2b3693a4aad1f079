import WirelensCaptureModel
import WirelensCore

/// Checks a probe report (`wirelens.report/1`) against the capture of its traffic.
///
/// Each transaction is joined to a connection by its 4-tuple *and* time: among the connections with that
/// 4-tuple, the one whose lifetime holds the transaction's request (a 4-tuple can carry several connections).
/// Connections no transaction joined that began before the run, or that go elsewhere than the probe's servers,
/// are foreign: listed apart, never a disagreement.
package enum ProbeVerifier {
    /// A connect time agrees with the handshake when they differ by at most this much (µs)...
    package static let connectToleranceFixed = ProbeVerification.connectToleranceFixed
    /// ...plus this fraction of the handshake.
    package static let connectToleranceFraction = ProbeVerification.connectToleranceFraction
    /// Clock slack (µs) when placing a transaction on a connection's lifetime or the run's window.
    package static let clockSlack: Int64 = 1_000
    /// The tolerance as the reports state it.
    package static var toleranceText: String { ProbeVerification.toleranceText }

    /// The verification of `probe` against `capture`'s connections.
    package static func verify(_ probe: Report, against capture: CaptureReport) -> ProbeVerification {
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

        // Per connection: order its transactions by request time, match them with its requests, decide SYN ownership.
        let flat = probe.tasks.flatMap { $0.transactions }
        // Connection -> the exchanges its transactions made; nil for a joined connection whose requests cannot be
        // told apart (TLS carrying HTTP/2, or a request body that may have waited for a 100 Continue).
        var matchedExchanges: [Int: Set<Int>] = [:]
        for (index, members) in onConnection.sorted(by: { $0.key < $1.key }) {
            let c = connections[index]
            let ordered = members.sorted {
                requestTime(flat[$0]) < requestTime(flat[$1])
            }
            let pairsExchanges = pairs(c)
            let matched = pairsExchanges ? match(ordered.map { flat[$0] }, c.exchanges) : [:]
            if pairsExchanges {
                matchedExchanges[index] = Set(matched.values)
            } else if countsEncryptedRequests(c, ordered.map { flat[$0] }) {
                // HTTP/1.x over TLS, one request at a time: the n-th run of client records is the n-th request.
                matchedExchanges[index] = Set(0..<min(ordered.count, c.exchanges.count))
            }
            for (rank, member) in ordered.enumerated() {
                let tx = flat[member]
                var check = result.transactions[member]
                check.exchange = matched[rank].map { c.exchanges[$0].index }
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
                        // libcurl ends the connect phase when it next looks at the socket: a client that was slow
                        // to look stays silent on the wire from the handshake to its request, and that pause may
                        // be in the phase too.
                        let pause = clientPause(c)
                        check.connectAgrees = probeConnect >= wire - tolerance && probeConnect <= wire + pause + tolerance
                        if check.connectAgrees == false {
                            check.disagreements.append("connect time \(DurationText.format(micros: probeConnect)) but "
                                + "the handshake took \(DurationText.format(micros: wire)) on the wire (tolerance \(toleranceText))")
                        }
                    }
                } else if !tx.reusedConnection {
                    check.ownsSYN = nil  // the connection began before the capture: cannot tell
                }
                let exchange = matched[rank].map { c.exchanges[$0] }
                let order = orderViolations(tx.timeline, connection: c, ownsSYN: check.ownsSYN == true, exchange: exchange)
                check.instantsInOrder = order.compared ? order.violations.isEmpty : nil
                check.download = downloadCheck(tx, connection: c, exchange: exchange)
                check.h2Window = h2WindowCheck(tx, connection: c, exchange: exchange)
                check.disagreements += order.violations
                result.transactions[member] = check
            }
            if let tls = c.tls, tls.exchangesInferred {
                result.notVerifiable.append(.init(connection: index, transactions: members.count,
                                                  reason: tls.decryption.rawValue))
            }
            if pairsExchanges {
                result.requestsPerConnection.append(.init(connection: index, wireExchanges: c.exchanges.count,
                                                          probeTransactions: members.count))
            }
        }

        // Run-level: the run's connections (and the foreign ones), connections opened, at once, requests.
        let windowStart = probe.startedAt - clockSlack, windowEnd = probe.endedAt + clockSlack
        var inRun: [TCPConnection] = []
        for c in connections where c.firstPacketAt <= windowEnd && c.inUseUntil >= windowStart {
            if onConnection[c.index] == nil,
               let reason = foreignReason(c, servers: servers, clients: clients, runStart: windowStart) {
                result.foreignConnections.append(.init(connection: c.index, client: c.client, server: c.server,
                                                       firstPacketAt: c.firstPacketAt, exchanges: c.exchanges.count,
                                                       reason: reason))
                continue
            }
            inRun.append(c)
        }
        result.connectionsOnWire = inRun.filter { c in c.synAt.map { $0 >= windowStart && $0 <= windowEnd } ?? false }.count
        let options = probe.configuration.options
        let hostLimit = options.maxHostConnections.flatMap { $0 > 0 ? $0 : nil }
        result.configuredTotalLimit = options.maxConnections.flatMap { $0 > 0 ? $0 : nil }
        for server in servers.sorted() {
            let mine = inRun.filter { $0.server == server }
            result.hosts.append(.init(server: server, connections: mine.count, maxConcurrent: openAtOnce(mine),
                                      configuredLimit: hostLimit))
        }
        result.maxConcurrent = openAtOnce(inRun)
        for c in inRun where pairs(c) || c.applicationProtocol == "tls" {
            guard let made = onConnection[c.index] == nil ? [] : matchedExchanges[c.index] else { continue }
            for (position, e) in c.exchanges.enumerated() where !made.contains(position) && e.requestStartAt != nil {
                result.strayExchanges.append(.init(connection: c.index, exchange: e.index, method: e.method,
                                                   target: e.target, requestStartAt: e.requestStartAt))
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
        if let limit = result.configuredTotalLimit, result.maxConcurrent > limit {
            run.append("\(result.maxConcurrent) connections at once on the wire, above the total limit of \(limit)")
        }
        for use in result.requestsPerConnection where use.wireExchanges < use.probeTransactions {
            run.append("connection #\(use.connection) carried \(use.wireExchanges) exchanges on the wire; the probe "
                + "reports \(use.probeTransactions) transactions on it")
        }
        for stray in result.strayExchanges {
            let at = stray.requestStartAt.map { " at \(WallClock.iso8601(micros: $0))" } ?? ""
            let what = stray.method.map { "request \($0) \(stray.target ?? "?")" } ?? "a request (encrypted or unreadable)"
            run.append("\(what) on connection #\(stray.connection) (exchange \(stray.exchange))\(at) is not explained "
                + "by any transaction")
        }
        result.disagreements = run + result.transactions.flatMap { check in
            check.disagreements.map { "task \(check.task) transaction \(check.transaction): \($0)" }
        }
        return result
    }

    /// Why a connection in use during the run that no transaction joined is not the run's, or nil when it is: it goes
    /// elsewhere than the probe's `servers` from its `clients`, or its SYN came before `runStart` or before the
    /// capture began (a live capture begins with the run).
    static func foreignReason(_ c: TCPConnection, servers: Set<Endpoint>, clients: Set<IPAddress>,
                              runStart: Int64) -> ProbeVerification.ForeignConnection.Reason? {
        // Without a handshake the capture may have guessed the roles the wrong way round (by the ports).
        let toTarget = (servers.contains(c.server) && clients.contains(c.client.address))
            || (!c.handshakeSeen && servers.contains(c.client) && clients.contains(c.server.address))
        if !toTarget { return .otherTarget }
        return (c.synAt ?? .min) < runStart ? .beganBeforeRun : nil
    }

    /// The most of `connections` in use at one instant (first packet to first FIN or RST, as the capture counts).
    private static func openAtOnce(_ connections: [TCPConnection]) -> Int {
        CaptureSummary.peak(connections.flatMap { [($0.firstPacketAt, 1), ($0.inUseUntil, -1)] })
    }

    /// Matches a connection's transactions (in order of request time) with its exchanges (in wire order): each
    /// request on the wire goes to the first transaction still unmatched, at or after the last one matched, with the
    /// same method and path. Returns transaction position -> exchange position.
    static func match(_ transactions: [TransactionMetrics], _ exchanges: [HTTPExchange]) -> [Int: Int] {
        var result: [Int: Int] = [:]
        var cursor = 0
        for (position, exchange) in exchanges.enumerated() where exchange.requestStartAt != nil {
            guard let found = (cursor..<transactions.count).first(where: { same(transactions[$0], exchange) }) else {
                continue
            }
            result[found] = position
            cursor = found + 1
        }
        return result
    }

    /// True when the request on the wire is the transaction's: the same method and path (the query is left out:
    /// both sides mask secrets in it their own way). What the capture could not read is not held against it.
    private static func same(_ tx: TransactionMetrics, _ exchange: HTTPExchange) -> Bool {
        if let method = exchange.method, method != tx.method { return false }
        guard let target = exchange.target else { return true }
        return path(of: target) == path(of: tx.url)
    }

    /// The path of a URL or of a request target (origin or absolute form), without query or fragment.
    static func path(of text: String) -> Substring {
        var rest = Substring(text)
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "/" }
            rest = rest[slash...]
            if rest.first != "/" { return "/" }
        }
        return rest.prefix { $0 != "?" && $0 != "#" }
    }

    /// The ways a transaction's instants break physical order against its connection's handshake (when it opened
    /// the connection) and its request on the wire, `orderSlack` allowed; `compared` is false when nothing could be.
    static func orderViolations(_ timeline: Timeline, connection c: TCPConnection, ownsSYN: Bool,
                                exchange: HTTPExchange?) -> (compared: Bool, violations: [String]) {
        let slack = ProbeVerification.orderSlack
        var compared = false
        var violations: [String] = []
        /// `instant` must not be later (`after`) or earlier than `wire` by more than the slack.
        func check(_ instant: Int64?, _ relation: String, _ wire: Int64?, _ what: String, _ packet: String) {
            guard let instant, let wire else { return }
            compared = true
            let excess = relation == "after" ? instant - wire : wire - instant
            if excess > slack {
                violations.append("\(what) is \(DurationText.format(micros: excess)) \(relation) \(packet) "
                    + "(physical order; \(slack)µs allowed)")
            }
        }
        if ownsSYN {
            check(timeline.connectStart, "after", c.synAt, "connect start", "the SYN on the wire")
            check(timeline.connectEnd, "before", c.synAckAt, "connect end", "the SYN/ACK on the wire")
        }
        if let exchange {
            check(timeline.requestStart, "after", exchange.requestStartAt, "request start",
                  "the request's first byte on the wire")
            let firstResponseByte = [exchange.interimAt, exchange.responseStartAt].compactMap { $0 }.min()
            check(timeline.responseStart, "before", firstResponseByte, "response start",
                  "the response's first byte on the wire")
        }
        return (compared, violations)
    }

    /// The wire's check of a download's pace on connection `c`, `exchange` being its response on the wire when it
    /// was matched; nil when the transaction is no download with a verdict. Without the exchange (TLS without keys)
    /// the connection's figures stand in: all its server bytes, from the client's first payload byte to its close.
    static func downloadCheck(_ tx: TransactionMetrics, connection c: TCPConnection,
                              exchange: HTTPExchange?) -> DownloadWireCheck? {
        guard let diagnosis = tx.diagnosis, diagnosis.evidence.direction == "download" else { return nil }
        var bytes = c.serverToClient.bytes
        var span = c.inUseUntil - (c.clientFirstDataAt ?? c.firstPacketAt)
        if let exchange, let start = exchange.responseStartAt, let end = exchange.responseEndAt {
            bytes = Int64(exchange.responseHeaderBytes) + exchange.responseBodyBytes
            span = end - start
        }
        return DownloadWireCheck(verdict: diagnosis.verdict, data: c.serverToClient, acks: c.clientToServer,
                                 bytes: bytes, span: span, roundTrip: c.handshakeRoundTrip)
    }

    /// The frames' check of an HTTP/2 upload's flow control on connection `c`, `exchange` being its stream; nil
    /// when the transaction is no upload with a verdict or its stream was not read.
    static func h2WindowCheck(_ tx: TransactionMetrics, connection c: TCPConnection,
                              exchange: HTTPExchange?) -> H2WindowWireCheck? {
        guard let diagnosis = tx.diagnosis, diagnosis.evidence.direction == "upload", let http2 = c.http2,
              let exchange, exchange.stream != nil else { return nil }
        let span = exchange.requestEndAt.flatMap { end in exchange.requestStartAt.map { end - $0 } }
        return H2WindowWireCheck(verdict: diagnosis.verdict, initialWindowSize: http2.serverInitialWindowSize,
                                 streamCredit: exchange.serverWindowCredit, connectionCredit: http2.serverConnectionCredit,
                                 bytes: exchange.requestBodyBytes, span: span, roundTrip: c.handshakeRoundTrip)
    }

    /// How long (µs) the client stayed silent between the end of its handshake (its ACK of the SYN/ACK) and its
    /// first payload byte (its request, or its TLS ClientHello); 0 when the capture cannot tell.
    static func clientPause(_ c: TCPConnection) -> Int64 {
        guard let ack = c.handshakeAckAt, let first = c.clientFirstDataAt else { return 0 }
        return max(0, first - ack)
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

    /// True when a TLS connection was not decrypted: its exchanges are inferred.
    private static func inferred(_ c: TCPConnection) -> Bool { c.tls?.exchangesInferred ?? false }

    /// True when a TLS connection's inferred exchanges count its requests: its transactions are HTTP/1.x (or got no
    /// response) without a request body (a body may wait for a 100 Continue, which splits one request in two runs of
    /// records).
    private static func countsEncryptedRequests(_ c: TCPConnection, _ transactions: [TransactionMetrics]) -> Bool {
        c.applicationProtocol == "tls" && inferred(c) && transactions.allSatisfy {
            ($0.networkProtocolName ?? "http/1.1").hasPrefix("http/1") && $0.requestBodyBytes == 0
        }
    }

    /// True when the connection's exchanges are read from the wire (HTTP/1.x, h2c, decrypted TLS), not inferred
    /// (TLS without keys).
    private static func pairs(_ c: TCPConnection) -> Bool {
        c.applicationProtocol?.hasPrefix("http/1") == true || c.applicationProtocol == "h2c"
            || (c.applicationProtocol == "tls" && c.tls?.exchangesInferred == false)
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
