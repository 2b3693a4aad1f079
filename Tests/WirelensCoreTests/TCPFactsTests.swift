import XCTest
import WirelensCore
import WirelensTestSupport

/// `TCPFacts.Builder`: counters as differences over the transfer, ranges over every snapshot, bounded samples.
final class TCPFactsTests: XCTestCase {
    /// A snapshot laid out as the kernel's struct (232 bytes, Linux 5.4 and later) with the given counters.
    private func snapshot(acked: UInt64, sent: UInt64, retrans: UInt64, rtt: UInt32, cwnd: UInt32, window: UInt32,
                          rate: UInt64, busy: UInt64, rwnd: UInt64) -> TCPInfo {
        Fixture.tcpInfo(acked: acked, sent: sent, retrans: retrans, rtt: rtt, cwnd: cwnd, window: window, rate: rate,
                        busy: busy, rwnd: rwnd, mss: 0)
    }

    func testCountersAreDifferencesAndRangesCoverEverySnapshot() throws {
        var builder = TCPFacts.Builder()
        builder.add(snapshot(acked: 1000, sent: 1000, retrans: 0, rtt: 900, cwnd: 10, window: 65536, rate: 0, busy: 50, rwnd: 0),
                    at: 5_000)
        builder.add(snapshot(acked: 501_000, sent: 520_000, retrans: 10_000, rtt: 4000, cwnd: 40, window: 8192,
                             rate: 900_000, busy: 80_050, rwnd: 60_000), at: 105_000)
        builder.add(snapshot(acked: 1_001_000, sent: 1_030_000, retrans: 20_000, rtt: 2000, cwnd: 30, window: 32768,
                             rate: 1_000_000, busy: 180_050, rwnd: 150_000), at: 205_000)
        let facts = try XCTUnwrap(builder.finish())
        XCTAssertEqual(facts.span, 200_000)
        XCTAssertEqual(facts.bytesAcked, 1_000_000)
        XCTAssertEqual(facts.bytesSent, 1_029_000)
        XCTAssertEqual(facts.bytesRetransmitted, 20_000)
        XCTAssertEqual(facts.retransmittedShare ?? 0, 20_000.0 / 1_029_000, accuracy: 1e-12)
        XCTAssertEqual(facts.busy, 180_000)
        XCTAssertEqual(facts.receiveWindowLimited, 150_000)
        XCTAssertEqual(facts.smoothedRTT, 2000)
        XCTAssertEqual(facts.maxRTT, 4000)
        XCTAssertEqual(facts.minRTT, 900)
        XCTAssertEqual(facts.congestionWindowMin, 10)
        XCTAssertEqual(facts.congestionWindowMax, 40)
        XCTAssertEqual(facts.peerWindowMin, 8192)
        XCTAssertEqual(facts.deliveryRateMax, 1_000_000)
        XCTAssertEqual(facts.samples.map(\.at), [0, 100_000, 200_000])
        XCTAssertEqual(facts.samples.last?.acked, 1_000_000)
    }

    func testSamplesStayBoundedAndSpanTheWholeTransfer() throws {
        var builder = TCPFacts.Builder()
        for i in 0..<10_000 {
            builder.add(snapshot(acked: UInt64(i) * 1000, sent: UInt64(i) * 1000, retrans: 0, rtt: 1000, cwnd: 10,
                                 window: 65536, rate: 1000, busy: UInt64(i), rwnd: 0), at: Int64(i) * 100_000)
        }
        let facts = try XCTUnwrap(builder.finish())
        XCTAssertLessThanOrEqual(facts.samples.count, TCPFacts.Builder.sampleLimit + 1)
        XCTAssertGreaterThanOrEqual(facts.samples.count, TCPFacts.Builder.sampleLimit / 2)
        XCTAssertEqual(facts.samples.first?.at, 0)
        XCTAssertEqual(facts.samples.last?.at, 9_999 * 100_000, "the last snapshot is always kept")
        // Evenly thinned: every gap but the last is the same stride.
        let gaps = zip(facts.samples.dropFirst(), facts.samples).map { $0.at - $1.at }
        XCTAssertEqual(Set(gaps.dropLast()).count, 1)
    }

    /// Which snapshots become samples, by a plain model of the rule: each snapshot once a later one came, if it is a
    /// multiple of the stride; past `sampleLimit` every other sample goes and the stride doubles; the last always.
    private func modelSampleIndices(_ n: Int) -> [Int] {
        var kept: [Int] = []
        var stride = 1
        func keep(_ i: Int) {
            kept.append(i)
            if kept.count > TCPFacts.Builder.sampleLimit {
                kept = kept.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
                stride *= 2
            }
        }
        for i in 1..<max(n, 1) where (i - 1) % stride == 0 { keep(i - 1) }
        if (n - 1) % stride == 0 { keep(n - 1) } else { kept.append(n - 1) }
        return kept
    }

    /// Short transfers keep no array until a third snapshot: whatever the count, the samples are the model's, each
    /// with its own snapshot's figures (acked since the first, the time since the first).
    func testSamplesOfEveryCountFollowTheRule() throws {
        for n in [1, 2, 3, 4, 5, 64, 65, 66, 67, 129, 130, 200, 257, 300] {
            var builder = TCPFacts.Builder()
            for i in 0..<n {
                builder.add(snapshot(acked: 7 + UInt64(i) * 1000, sent: 0, retrans: 0, rtt: 1000 + UInt32(i), cwnd: 10,
                                     window: 65536, rate: 1000, busy: 0, rwnd: 0), at: 3 + Int64(i) * 10)
            }
            let facts = try XCTUnwrap(builder.finish())
            let expected = modelSampleIndices(n)
            XCTAssertEqual(facts.samples.map(\.at), expected.map { Int64($0) * 10 }, "\(n) snapshots")
            XCTAssertEqual(facts.samples.map(\.acked), expected.map { UInt64($0) * 1000 }, "\(n) snapshots")
            XCTAssertEqual(facts.samples.map(\.rtt), expected.map { 1000 + UInt32($0) }, "\(n) snapshots")
            XCTAssertEqual(facts.span, Int64(n - 1) * 10)
        }
    }

    /// A record that keeps no samples (the text summary of many tasks) has the same facts otherwise: the medians of a
    /// short transfer, taken without an array, are the plain upper medians of the samples a full record keeps.
    func testFactsWithoutSamplesAreTheSameOtherwise() throws {
        for n in [1, 2, 3, 5, 70] {
            var full = TCPFacts.Builder()
            var bare = TCPFacts.Builder()
            for i in 0..<n {
                // Windows and rates that go down and up again, one of them zero, so the medians are not an end's.
                let window = UInt32(((i * 37) % 11) * 4096)
                let rate = UInt64(((i * 53) % 7 + 1) * 1000)
                let info = snapshot(acked: UInt64(i) * 1000, sent: 0, retrans: 0, rtt: 1000, cwnd: 10, window: window,
                                    rate: rate, busy: 0, rwnd: 0)
                full.add(info, at: Int64(i) * 10)
                bare.add(info, at: Int64(i) * 10)
            }
            var kept = try XCTUnwrap(full.finish())
            let lean = try XCTUnwrap(bare.finish(keepingSamples: false))
            XCTAssertTrue(lean.samples.isEmpty, "\(n) snapshots")
            let windows = kept.samples.compactMap(\.peerWindow).sorted()
            let rates = kept.samples.compactMap(\.deliveryRate).sorted()
            XCTAssertEqual(lean.peerWindowMedian, windows[windows.count / 2], "\(n) snapshots")
            XCTAssertEqual(lean.deliveryRateMedian, rates[rates.count / 2], "\(n) snapshots")
            XCTAssertEqual(lean.zeroWindowShare, Double(windows.filter { $0 == 0 }.count) / Double(windows.count))
            kept.samples = []
            XCTAssertEqual(lean, kept, "\(n) snapshots")
        }
    }

    func testNoSnapshotGivesNoFacts() {
        var empty = TCPFacts.Builder()
        XCTAssertNil(empty.finish())
    }
}
