import XCTest
@testable import WirelensCore
import WirelensTestSupport

/// `ConnectionLedger`: each connection once with its transactions, its latest totals and its leading verdict, in
/// memory bounded by its limits whatever the run's length.
final class ConnectionLedgerTests: XCTestCase {
    private func tx(port: Int, id: Int, at start: Int64, took: Int64 = 1_000, verdict: Verdict = .roundTrips,
                    received: UInt64? = nil) -> TransactionMetrics {
        var m = Fixture.transaction(fetchStart: start, responseEnd: start + took, reused: received != nil,
                                     connectionId: id, localPort: port)
        m.diagnosis = Diagnosis(verdict: verdict, evidence: .init(direction: "download"))
        if let received {
            m.tcp = TCPFacts(span: took, bytesSent: 0, bytesAcked: 0, bytesReceived: 0, bytesRetransmitted: 0,
                             segmentsRetransmitted: 0, outOfOrderPacketsIn: 0, minRTT: 1, smoothedRTT: 2, maxRTT: 2,
                             receiveRTT: 2, congestionWindowMin: 10, congestionWindowMax: 10, sendMSS: 1448,
                             pathMTU: 1500, peerWindowMin: nil, deliveryRateMax: nil, deliveryRateMedian: nil,
                             busy: nil, receiveWindowLimited: nil, sendBufferLimited: nil, samples: [])
            m.connectionTotals = TCPTotals(Fixture.tcpInfo(acked: received))
        }
        return m
    }

    func testEachConnectionOnceWithItsTransactionsLatestTotalsAndLeadingVerdict() {
        var ledger = ConnectionLedger()
        // Tasks arrive out of order; connection 7 carries tasks 0, 2 and 3, connection 8 task 1.
        ledger.add(Fixture.task(index: 3, transactions: [tx(port: 7, id: 0, at: 3_000_000, took: 9_000,
                                                             verdict: .serverThink, received: 300)]))
        ledger.add(Fixture.task(index: 0, transactions: [tx(port: 7, id: 0, at: 1_000_000, received: 100)]))
        ledger.add(Fixture.task(index: 1, transactions: [tx(port: 8, id: 1, at: 1_500_000)]))
        ledger.add(Fixture.task(index: 2, transactions: [tx(port: 7, id: 0, at: 2_000_000, received: 200)]))
        let records = ledger.records
        XCTAssertEqual(records.map(\.localPort), [7, 8])
        XCTAssertEqual(records[0].transactionCount, 3)
        XCTAssertEqual(records[0].transactions.map(\.task), [0, 2, 3])
        XCTAssertEqual(records[0].totals?.bytesAcked, 300, "the latest snapshot's totals")
        XCTAssertEqual(records[0].diagnosis?.verdict, .serverThink, "9 ms of server-think against 2 ms of round-trips")
        XCTAssertEqual(records[0].diagnosis?.transactions, 1)
        XCTAssertEqual(records[0].diagnosis?.share ?? 0, 9.0 / 11.0, accuracy: 1e-9)
        XCTAssertNil(records[1].totals)
    }

    func testMemoryStaysBoundedInLongRuns() {
        var ledger = ConnectionLedger(connectionLimit: 3, referenceLimit: 10)
        // 5 connections, 40 transactions each, interleaved.
        for i in 0..<200 {
            ledger.add(Fixture.task(index: i, transactions: [tx(port: 100 + i % 5, id: i % 5, at: Int64(i) * 10_000)]))
        }
        XCTAssertEqual(ledger.retained.connections, 3)
        XCTAssertEqual(ledger.retained.references, 10)
        XCTAssertEqual(ledger.unlistedTransactions, 80, "the two connections past the limit, 40 transactions each")
        let records = ledger.records
        XCTAssertEqual(records.map(\.transactionCount), [40, 40, 40], "counts stay exact past the reference limit")
        XCTAssertEqual(records.map(\.transactions.count).reduce(0, +), 10)
    }
}
