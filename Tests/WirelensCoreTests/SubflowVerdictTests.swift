import WirelensCore
import XCTest

/// Each subflow's own verdict (`MPTCPFacts.judged`, `TCPFacts.subflow`) from crafted `tcp_info` snapshots at the
/// kernel's offsets (`DownloadDiagnosisTests.snapshot`: a 40 ms path, its minimum RTT 40 ms), checked against the
/// download rules' thresholds worked by hand.
final class SubflowVerdictTests: XCTestCase {
    /// 9 MB in a 4 s receive phase.
    private static let input = Diagnosis.Input(
        phases: Phases(connect: 40_000, send: 100, wait: 41_000, receive: 4_000_000, total: 4_081_100),
        requestBodyBytes: 0, responseBodyBytes: 9_000_000, tcp: nil, missingReason: "the first subflow's facts")

    /// A subflow with its snapshot, as `MPTCPFacts.of` makes it.
    private func subflow(_ info: TCPInfo, _ share: Double) -> MPTCPSubflow {
        var s = MPTCPSubflow(addresses: nil, info: info, bodyShare: share)
        s.snapshot = info
        return s
    }

    /// Two subflows: the first took 6 MB (1.5 MB/s) through a 65 kB window over 40 ms (1.625 MB/s: 92% of it, at
    /// least 70%) with its receive RTT at the minimum: `client-window`; the second 3 MB (0.75 MB/s, 46% of its window's
    /// rate) with a receive RTT of 90 ms, at least 1.5 times the minimum and 10 ms above it: a queue, `network`.
    func testEachSubflowGetsTheVerdictOfItsOwnFacts() throws {
        let windowBound = try DownloadDiagnosisTests.snapshot(receiveRTT: 41_000, receiveWindow: 65_000, received: 6_000_000)
        let queued = try DownloadDiagnosisTests.snapshot(receiveRTT: 90_000, receiveWindow: 65_000, received: 3_000_000)
        let facts = MPTCPFacts(negotiated: true, subflows: [
            subflow(windowBound, 6.0 / 9),
            subflow(queued, 3.0 / 9),
        ])
        let judged = facts.judged(Self.input)
        XCTAssertEqual(judged.subflows.map(\.verdict), [.clientWindow, .network])
        XCTAssertEqual(judged.subflows.map(\.snapshot), [nil, nil], "the snapshots are not kept")
        // Out-of-order arrivals on the first one make it the network's too.
        let lossy = try DownloadDiagnosisTests.snapshot(receiveRTT: 41_000, receiveWindow: 4 << 20, received: 6_000_000,
                                                        outOfOrder: 12)
        let both = MPTCPFacts(negotiated: true, subflows: [subflow(lossy, 6.0 / 9),
                                                            subflow(queued, 3.0 / 9)])
        XCTAssertEqual(both.judged(Self.input).subflows.map(\.verdict), [.network, .network])
        // An open window (4 MiB over 40 ms: 105 MB/s), no queue, no loss: the server sent slower than it allowed.
        let open = try DownloadDiagnosisTests.snapshot(receiveRTT: 41_000, receiveWindow: 4 << 20, received: 6_000_000)
        let served = MPTCPFacts(negotiated: true, subflows: [subflow(open, 6.0 / 9),
                                                              subflow(queued, 3.0 / 9)])
        XCTAssertEqual(served.judged(Self.input).subflows.map(\.verdict), [.serverSend, .network])
    }

    /// One subflow has no verdict of its own (the transaction's is its), and a fallen-back connection none at all.
    func testASingleSubflowGetsNoVerdict() throws {
        let queued = try DownloadDiagnosisTests.snapshot(receiveRTT: 90_000, receiveWindow: 65_000, received: 3_000_000)
        let one = MPTCPFacts(negotiated: true, subflows: [subflow(queued, 1)])
        let judged = one.judged(Self.input)
        XCTAssertNil(judged.subflows[0].verdict)
        XCTAssertNil(judged.subflows[0].snapshot)
        XCTAssertEqual(MPTCPFacts(negotiated: false, subflows: []).judged(Self.input).subflows, [])
    }
}
