import XCTest
import WirelensCore
import WirelensTestSupport

final class SummaryTests: XCTestCase {
    private let t = Fixture.epoch
    private let ms: Int64 = 1_000

    // MARK: - Connections

    func testOpenedAndReusedCountsWithOneKeptAliveConnection() {
        // Three sequential GETs over one keep-alive connection #0.
        let tasks = (0..<3).map { i -> TaskRecord in
            let start = t + Int64(i) * 100 * ms
            return Fixture.task(index: i, transactions: [
                Fixture.transaction(fetchStart: start, responseEnd: start + 90 * ms, reused: i > 0,
                                    connectionId: 0, localPort: 50_000),
            ])
        }
        let c = Summary.build(tasks: tasks).connections
        XCTAssertEqual(c.opened, 1)
        XCTAssertEqual(c.reused, 2)
        XCTAssertEqual(c.distinct, 1)
        XCTAssertEqual(c.maxOpenAtOnce, 1)
    }

    func testTwoOverlappingConnections() {
        let a = Fixture.transaction(fetchStart: t, responseEnd: t + 100 * ms, reused: false, connectionId: 0,
                                    localPort: 50_000)
        let b = Fixture.transaction(fetchStart: t + 50 * ms, responseEnd: t + 150 * ms, reused: false,
                                    connectionId: 1, localPort: 50_001)
        let c = Summary.build(tasks: [Fixture.task(index: 0, transactions: [a]),
                                      Fixture.task(index: 1, transactions: [b])]).connections
        XCTAssertEqual(c.opened, 2)
        XCTAssertEqual(c.reused, 0)
        XCTAssertEqual(c.distinct, 2)
        XCTAssertEqual(c.maxOpenAtOnce, 2)
    }

    func testSequentialConnectionsNeverOverlap() {
        // The second connection's handshake starts exactly when the first one's last byte arrives.
        let a = Fixture.transaction(fetchStart: t, responseEnd: t + 100 * ms, reused: false,
                                    connectionId: 0, localPort: 50_000)
        let b = Fixture.transaction(fetchStart: t + 100 * ms, responseEnd: t + 200 * ms, reused: false,
                                    connectionId: 1, localPort: 50_001)
        XCTAssertEqual(b.timeline.connectStart, a.timeline.responseEnd)
        let d = Fixture.transaction(fetchStart: t + 300 * ms, responseEnd: t + 400 * ms, reused: false,
                                    connectionId: 2, localPort: 50_002)
        let c = Summary.build(tasks: [a, b, d].enumerated().map { Fixture.task(index: $0, transactions: [$1]) })
            .connections
        XCTAssertEqual(c.distinct, 3)
        XCTAssertEqual(c.opened, 3)
        XCTAssertEqual(c.maxOpenAtOnce, 1)
    }

    func testAConnectionIsOpenUntilLibcurlClosedIt() {
        // libcurl closed connection 0 (Connection: close) at 80 ms and connection 1's handshake began at 90 ms, both
        // before the first transaction's end was stamped at 100 ms: one connection open at a time, as on the wire.
        var a = Fixture.transaction(fetchStart: t, responseEnd: t + 100 * ms, reused: false, connectionId: 0,
                                    localPort: 50_000)
        a.connectionClosed = t + 80 * ms
        let b = Fixture.transaction(fetchStart: t + 90 * ms, responseEnd: t + 200 * ms, reused: false,
                                    connectionId: 1, localPort: 50_001)
        let c = Summary.build(tasks: [a, b].enumerated().map { Fixture.task(index: $0, transactions: [$1]) })
            .connections
        XCTAssertEqual(c.maxOpenAtOnce, 1)
        a.connectionClosed = nil
        XCTAssertEqual(Summary.build(tasks: [a, b].enumerated().map { Fixture.task(index: $0, transactions: [$1]) })
            .connections.maxOpenAtOnce, 2, "without the close, the span runs to the transaction's end")
    }

    /// nginx's `keepalive_requests 3`: libcurl closed the connection at the end of its third transaction (70 ms) and
    /// opened the next one at 75 ms, while the second transaction's end was stamped only after both (80 ms, when the
    /// engine heard of it). The close ends the connection, whichever order the transactions come in.
    func testTheCloseEndsAConnectionWhateverItsOtherTransactionsSay() {
        let second = Fixture.transaction(fetchStart: t + 20 * ms, responseEnd: t + 80 * ms, reused: true,
                                         connectionId: 0, localPort: 50_000)
        var third = Fixture.transaction(fetchStart: t + 50 * ms, responseEnd: t + 70 * ms, reused: true,
                                        connectionId: 0, localPort: 50_000)
        third.connectionClosed = t + 70 * ms
        let next = Fixture.transaction(fetchStart: t + 75 * ms, responseEnd: t + 200 * ms, reused: false,
                                       connectionId: 1, localPort: 50_001)
        for order in [[second, third, next], [third, second, next]] {
            let c = Summary.build(tasks: order.enumerated().map { Fixture.task(index: $0, transactions: [$1]) })
                .connections
            XCTAssertEqual(c.maxOpenAtOnce, 1)
        }
    }

    func testConnectionSharedByOverlappingTransactionsCountsOnce() {
        // Three HTTP/2 streams multiplexed on connection #4 at the same time.
        let txs = (0..<3).map { i in
            Fixture.transaction(fetchStart: t + Int64(i) * 10 * ms, responseEnd: t + Int64(i) * 10 * ms + 100 * ms,
                                reused: i > 0, connectionId: 4, localPort: 40_404, protocolName: "h2")
        }
        let tasks = txs.enumerated().map { Fixture.task(index: $0, transactions: [$1]) }
        let s = Summary.build(tasks: tasks)
        XCTAssertEqual(s.connections.distinct, 1)
        XCTAssertEqual(s.connections.maxOpenAtOnce, 1)
        XCTAssertEqual(s.connections.opened, 1)
        XCTAssertEqual(s.connections.reused, 2)
        XCTAssertEqual(s.protocols, ["h2": 3])
    }

    func testReusedConnectionStaysOpenBetweenItsTransactions() {
        // #0 serves 0–100 ms and 200–300 ms; #1 lives 120–180 ms while #0 sits idle in the pool.
        let a1 = Fixture.transaction(fetchStart: t, responseEnd: t + 100 * ms, reused: false, connectionId: 0,
                                     localPort: 50_000)
        let a2 = Fixture.transaction(fetchStart: t + 200 * ms, responseEnd: t + 300 * ms, reused: true,
                                     connectionId: 0, localPort: 50_000)
        let b = Fixture.transaction(fetchStart: t + 120 * ms, responseEnd: t + 180 * ms, reused: false,
                                    connectionId: 1, localPort: 50_001)
        let tasks = [a1, b, a2].enumerated().map { Fixture.task(index: $0, transactions: [$1]) }
        let c = Summary.build(tasks: tasks).connections
        XCTAssertEqual(c.distinct, 2)
        XCTAssertEqual(c.maxOpenAtOnce, 2)
        XCTAssertEqual(c.opened, 2)
        XCTAssertEqual(c.reused, 1)
    }

    func testSameLocalPortWithDifferentConnectionNumbersAreDistinct() {
        // The kernel may hand out a local port again once the first connection is closed.
        let a = Fixture.transaction(fetchStart: t, responseEnd: t + 10 * ms, reused: false, connectionId: 0,
                                    localPort: 50_000)
        let b = Fixture.transaction(fetchStart: t + 20 * ms, responseEnd: t + 30 * ms, reused: false,
                                    connectionId: 1, localPort: 50_000)
        let c = Summary.build(tasks: [Fixture.task(transactions: [a, b])]).connections
        XCTAssertEqual(c.distinct, 2)
        XCTAssertEqual(c.maxOpenAtOnce, 1)
    }

    func testTransactionWithoutConnectionIsNotCounted() {
        let ok = Fixture.transaction(fetchStart: t, responseEnd: t + 10 * ms, reused: false)
        var failed = Fixture.transaction(fetchStart: t, requestStart: t + 1 * ms, reused: true, connectionId: nil,
                                         localPort: nil, status: nil, error: Fixture.error(.dns))
        failed.timeline.requestStart = nil
        failed.timeline.requestEnd = nil
        let c = Summary.build(tasks: [Fixture.task(index: 0, transactions: [ok]),
                                      Fixture.task(index: 1, status: nil, error: Fixture.error(.dns),
                                                   transactions: [failed])]).connections
        XCTAssertEqual(c.distinct, 1)
        XCTAssertEqual(c.opened, 1)
        XCTAssertEqual(c.maxOpenAtOnce, 1)
    }

    func testConnectionKey() {
        let tx = Fixture.transaction(fetchStart: t, responseEnd: t + 1, reused: false, connectionId: 7,
                                     localPort: 51_234)
        let key = Summary.ConnectionKey(tx)
        XCTAssertEqual(key?.id, 7)
        XCTAssertEqual(key?.localAddress, "192.0.2.10")
        XCTAssertEqual(key?.localPort, 51_234)
        XCTAssertEqual(key?.remoteAddress, "198.51.100.7")
        XCTAssertEqual(key?.remotePort, 443)
        var otherPort = tx
        otherPort.localPort = 51_235
        XCTAssertNotEqual(Summary.ConnectionKey(otherPort), key, "another local port is another connection")
        let noPort = Fixture.transaction(fetchStart: t, reused: false, connectionId: 7, localPort: nil)
        XCTAssertNil(Summary.ConnectionKey(noPort))
    }

    // MARK: - Outcomes

    func testStatusAndErrorCounts() {
        let ok = { (i: Int) in
            Fixture.task(index: i, status: 200, transactions: [
                Fixture.transaction(fetchStart: self.t, responseEnd: self.t + 5 * self.ms, reused: i > 0),
            ])
        }
        let notFound = Fixture.task(index: 2, status: 404, error: Fixture.error(.http), transactions: [
            Fixture.transaction(fetchStart: t, responseEnd: t + 5 * ms, reused: true, status: 404),
        ])
        let unavailable = Fixture.task(index: 3, status: 503, error: Fixture.error(.http), transactions: [
            Fixture.transaction(fetchStart: t, responseEnd: t + 5 * ms, reused: true, status: 503),
        ])
        let timedOut = Fixture.task(index: 4, status: nil, error: Fixture.error(.idleTimeout), transactions: [])
        let s = Summary.build(tasks: [ok(0), ok(1), notFound, unavailable, timedOut])
        XCTAssertEqual(s.tasks, 5)
        XCTAssertEqual(s.succeeded, 2)
        XCTAssertEqual(s.failed, 3)
        XCTAssertEqual(s.transactions, 4)
        XCTAssertEqual(s.statusCodes, ["200": 2, "404": 1, "503": 1])
        XCTAssertEqual(s.errors, ["http": 2, "timeout.idle": 1])
    }

    func testRedirectAndRetryTransactionsAreCountedAsTransactions() {
        let hop1 = Fixture.transaction(kind: .initial, fetchStart: t, responseEnd: t + 5 * ms, reused: false,
                                       status: 302)
        let hop2 = Fixture.transaction(kind: .redirect, fetchStart: t + 5 * ms, responseEnd: t + 10 * ms,
                                       reused: true, status: 200)
        let s = Summary.build(tasks: [Fixture.task(status: 200, transactions: [hop1, hop2])])
        XCTAssertEqual(s.tasks, 1)
        XCTAssertEqual(s.transactions, 2)
        XCTAssertEqual(s.statusCodes, ["200": 1], "only the final status of a task counts")
        XCTAssertEqual(s.protocols, ["http/1.1": 2])
    }

    // MARK: - Throughput

    func testThroughputOverWallTime() {
        let up = Fixture.transaction(method: "PUT", fetchStart: t, requestEnd: t + 1_500 * ms,
                                     responseEnd: t + 1_600 * ms, reused: false, connectionId: 0,
                                     localPort: 50_000, requestBodyBytes: 3_000_000)
        let down = Fixture.transaction(fetchStart: t + 500 * ms, responseEnd: t + 2_000 * ms, reused: false,
                                       connectionId: 1, localPort: 50_001, responseBodyBytes: 1_000_000)
        let tasks = [Fixture.task(index: 0, startedAt: t, endedAt: t + 1_600 * ms, transactions: [up]),
                     Fixture.task(index: 1, startedAt: t + 500 * ms, endedAt: t + 2_000 * ms, transactions: [down])]
        let s = Summary.build(tasks: tasks)
        XCTAssertEqual(s.wallTimeMs, 2_000, accuracy: 1e-9)
        XCTAssertEqual(s.tasksPerSecond, 1, accuracy: 1e-9)
        XCTAssertEqual(s.requestBodyBytes, 3_000_000)
        XCTAssertEqual(s.responseBodyBytes, 1_000_000)
        XCTAssertEqual(s.uploadBytesPerSecond, 1_500_000, accuracy: 1e-6)
        XCTAssertEqual(s.downloadBytesPerSecond, 500_000, accuracy: 1e-6)
        XCTAssertEqual(s.connections.maxOpenAtOnce, 2)
    }

    // MARK: - Phase statistics

    func testPhaseStatisticsInMillisecondsOverTransactionsWherePhaseHappened() throws {
        var txs: [TransactionMetrics] = []
        for (i, waitMs) in [10, 20, 30].enumerated() {
            var tx = Fixture.transaction(fetchStart: t, responseEnd: t + 100 * ms, reused: i > 0)
            tx.phases.wait = Int64(waitMs) * ms
            tx.phases.dns = i == 0 ? 4_500 : nil
            tx.phases.tls = nil
            txs.append(tx)
        }
        let s = Summary.build(tasks: [Fixture.task(transactions: txs)])
        let wait = try XCTUnwrap(s.phases["wait"])
        XCTAssertEqual(wait.count, 3)
        XCTAssertEqual(wait.p50, 20, accuracy: 1e-9)
        XCTAssertEqual(wait.min, 10, accuracy: 1e-9)
        XCTAssertEqual(wait.max, 30, accuracy: 1e-9)
        let dns = try XCTUnwrap(s.phases["dns"])
        XCTAssertEqual(dns.count, 1, "transactions without a DNS step are not counted as 0")
        XCTAssertEqual(dns.p50, 4.5, accuracy: 1e-9)
        XCTAssertNil(s.phases["tls"], "no transaction had a TLS step")
        XCTAssertEqual(s.phases["connect"]?.count, 1, "only the first transaction opened a connection")
        XCTAssertEqual(s.phases["total"]?.count, 3)
        XCTAssertEqual(s.phases["total"]?.p50 ?? 0, 100, accuracy: 1e-9)
    }

    func testEmptyRun() {
        let s = Summary.build(tasks: [])
        XCTAssertEqual(s.tasks, 0)
        XCTAssertEqual(s.transactions, 0)
        XCTAssertEqual(s.failed, 0)
        XCTAssertTrue(s.phases.isEmpty)
        XCTAssertEqual(s.connections.distinct, 0)
        XCTAssertEqual(s.connections.maxOpenAtOnce, 0)
        XCTAssertTrue(s.uploadBytesPerSecond.isFinite)
        XCTAssertTrue(s.tasksPerSecond.isFinite)
    }
}
