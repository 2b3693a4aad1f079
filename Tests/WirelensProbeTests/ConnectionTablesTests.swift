import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// The engine's per-connection tables (open sockets, their ports, the TLS facts by connection number) lose a
/// connection's entries when libcurl closes it, so they follow the open connections, not the run's length.
final class ConnectionTablesTests: XCTestCase {
    /// 200 HTTPS GETs against nginx, each on a connection of its own (--no-reuse: FRESH_CONNECT + FORBID_REUSE, so
    /// libcurl closes each connection as its transfer ends): every connection had TLS facts, and none stays behind.
    func testTablesStayBoundedOverManyShortConnections() async throws {
        let servers = try TestServers.get()
        var options = ProbeOptions()
        options.caFile = servers.certPath
        options.reuseConnections = false
        options.concurrency = 4
        let engine = try Engine(options: options)
        let count = 200
        let tasks = await engine.run(Array(repeating: TaskSpec(url: servers.https("/small.txt")), count: count))
        XCTAssertEqual(tasks.filter { $0.statusCode == 200 }.count, count)
        let transactions = tasks.flatMap(\.transactions)
        XCTAssertEqual(Set(transactions.compactMap(\.connectionId)).count, count, "a connection per transfer")
        XCTAssertEqual(transactions.filter { $0.tlsVersion != nil }.count, count, "every connection's TLS facts were read")
        let tables = await engine.tableCounts()
        XCTAssertEqual(tables.active, 0)
        XCTAssertLessThanOrEqual(tables.tls, options.concurrency, "TLS facts of closed connections stay: \(tables)")
        XCTAssertLessThanOrEqual(tables.sockets, options.concurrency, "closed sockets stay: \(tables)")
        XCTAssertLessThanOrEqual(tables.ports, options.concurrency, "ports of closed sockets stay: \(tables)")
        XCTAssertLessThanOrEqual(tables.connections, options.concurrency, "numbers of closed connections stay: \(tables)")
        await engine.shutdown()
    }

    /// Reused connections keep their entries while libcurl keeps them open (the cache), and the transactions on them
    /// get the TLS facts their connection's first transaction read; an explicit shutdown closes them all.
    func testReusedConnectionsKeepTheirFactsWhileOpen() async throws {
        let servers = try TestServers.get()
        var options = ProbeOptions()
        options.caFile = servers.certPath
        options.concurrency = 2
        options.httpVersion = .http1_1
        try await Engine.with(options: options) { engine in
            let tasks = await engine.run(Array(repeating: TaskSpec(url: servers.https("/small.txt")), count: 20))
            let transactions = tasks.flatMap(\.transactions)
            XCTAssertEqual(transactions.filter { $0.tlsVersion != nil }.count, 20)
            XCTAssertGreaterThan(transactions.filter(\.reusedConnection).count, 0)
            let tables = await engine.tableCounts()
            XCTAssertEqual(tables.tls, Set(transactions.compactMap(\.connectionId)).count,
                           "every connection is still in libcurl's cache")
            XCTAssertLessThanOrEqual(tables.sockets, 8)
        }
    }
}
