import WirelensCore
import XCTest
@testable import WirelensProbe

/// `HostMarks.facts` splits a transfer's host facts into its send and receive sides without reading the host.
/// Oracle: the architecture's rule (sending runs from the connection being ready to the response's start, receiving
/// from there to the end) and CPU shares hand-computed from the snapshots' CPU times.
final class HostMarksTests: XCTestCase {
    private let limits = HostLimits(cpusAllowed: 2, cgroup: nil, cpuQuota: nil)

    private func snapshot(at micros: Int64, cpu: Int64) -> HostSnapshot {
        HostSnapshot(at: micros, cpuTime: cpu, runQueueWait: nil, throttling: nil)
    }

    func testSendingEndsWhereTheResponseBeginsAndReceivingRunsToTheEnd() throws {
        var marks = HostMarks()
        marks.atReady = snapshot(at: 0, cpu: 1_000)
        marks.atResponse = snapshot(at: 100_000, cpu: 51_000)
        let (send, receive) = marks.facts(atEnd: snapshot(at: 300_000, cpu: 71_000), limits: limits, peerLocal: true)
        let sent = try XCTUnwrap(send)
        let received = try XCTUnwrap(receive)
        XCTAssertEqual(sent.span, 100_000)
        XCTAssertEqual(sent.cpuTime, 50_000)
        XCTAssertEqual(sent.cpuShare, 0.5, accuracy: 1e-9, "50 ms of CPU over 100 ms")
        XCTAssertEqual(received.span, 200_000)
        XCTAssertEqual(received.cpuShare, 0.1, accuracy: 1e-9, "20 ms of CPU over 200 ms")
        XCTAssertEqual(sent.peerOnThisMachine, true)
        XCTAssertEqual(received.peerOnThisMachine, true)
    }

    func testWithoutAResponseSendingRunsToTheEndAndNothingIsReceived() throws {
        var marks = HostMarks()
        marks.atReady = snapshot(at: 0, cpu: 0)
        let (send, receive) = marks.facts(atEnd: snapshot(at: 40_000, cpu: 10_000), limits: limits, peerLocal: false)
        XCTAssertEqual(try XCTUnwrap(send).span, 40_000)
        XCTAssertEqual(send?.peerOnThisMachine, false)
        XCTAssertNil(receive)
    }

    func testATransferThatNeverHadAConnectionHasNoHostFacts() {
        let (send, receive) = HostMarks().facts(atEnd: snapshot(at: 40_000, cpu: 10_000), limits: limits, peerLocal: false)
        XCTAssertNil(send)
        XCTAssertNil(receive)
    }
}
