import XCTest
import WirelensCore
@testable import WirelensProbe

/// Where an upload body's last byte reached the server, from the client kernel's looks: the figures are those of
/// uploads in network namespaces whose server's own capture showed the arrival (the comments give it).
final class BodyArrivalTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    private func look(_ at: Int64, acked: UInt64, inFlight: UInt64, notSent: UInt64, window: UInt64? = 635_904,
                      rate: UInt64? = 957_000) -> BodyArrival.Sample {
        BodyArrival.Sample(at: at, acked: acked, inFlight: inFlight, notSent: notSent, sendWindow: window,
                           segmentSize: 1448, minRTT: 80_000, deliveryRate: rate)
    }

    /// An 8 Mbit/s path with a queue, a server that answers after 30 ms: the peer acknowledged every pair of segments
    /// on arrival and held the ACK of the final one until its response. The acknowledgement came 30 ms late; the
    /// rest over the delivery rate from the last looks puts the arrival within a segment's time of the capture's.
    func testAQueuedPathExtrapolatesTheAcknowledgementsNotTheLateLastOne() {
        let end: UInt64 = 100_000
        var body = BodyArrival(written: 0)
        var at: Int64 = 500 * ms
        var acked: UInt64 = end - 40_000
        // The last byte leaves 20 ms before it arrives (the path's queue); pairs acknowledged every ~3 ms.
        let arrival: Int64 = 560 * ms
        while acked < end - 1448 {
            let inFlight = end - acked
            XCTAssertFalse(body.add(look(at, acked: acked, inFlight: at < 540 * ms ? inFlight - 5000 : inFlight,
                                         notSent: at < 540 * ms ? 5000 : 0)))
            at += 2 * ms
            // Acknowledged on arrival, at 957 kB/s, a pair at a time (the pairs counted back from the final odd
            // segment): what arrived by `at` (capture time) less the pair in progress.
            let arrived = Double(end) - Double(arrival - at) / 1e9 * 957_000
            let pairsToGo = (max(0, Double(end - 1448) - arrived) / 2896).rounded(.up)
            acked = max(acked, end - 1448 - UInt64(pairsToGo) * 2896)
        }
        // The final segment's ACK is held: looks until the response at 590 ms see it unacknowledged.
        while at < 590 * ms {
            XCTAssertFalse(body.add(look(at, acked: acked, inFlight: end - acked, notSent: 0)))
            at += 2 * ms
        }
        XCTAssertFalse(body.windowBound)
        let estimate = try! XCTUnwrap(body.arrival(responseStart: 590 * ms))
        XCTAssertEqual(Double(estimate - arrival) / 1e6, 0, accuracy: 2, "within 2 ms of the capture's arrival")
        XCTAssertEqual(body.progress?.acked, end - 1448, "the last look with a new acknowledgement")
    }

    /// One of 8 segments in flight on a 5 Mbit/s link with a 50 ms queue: the flow's delivery rate fell from 264 kB/s
    /// to 27 kB/s as it neared its end (app-limited, and sharing the queue), and the whole body was acknowledged at
    /// 969.8 ms. The earliest extrapolation of the last eight looks (from 577 ms, 46 kB to go at 264 kB/s) put the
    /// arrival at 753 ms, 217 ms before the server's capture; the last look short of the end bounds it from below.
    func testFlowsSharingAQueueExtrapolateOnlyFromTheLastAcknowledgement() throws {
        let end: UInt64 = 524_673
        var body = BodyArrival(written: 0)
        let looks: [(Int64, UInt64, UInt64, UInt64, UInt64)] = [  // ms x 1000, acked, rate, in flight, not sent
            (576_952, 478_282, 263_795, 17_375, 29_016), (590_589, 479_730, 244_516, 21_719, 23_224),
            (724_085, 498_554, 189_652, 24_615, 1504), (780_173, 508_690, 163_112, 15_983, 0),
            (803_955, 510_138, 162_824, 14_535, 0), (881_460, 511_586, 27_136, 13_087, 0),
            (883_635, 513_034, 54_272, 11_639, 0), (967_643, 514_482, 27_170, 10_191, 0),
        ]
        for (at, acked, rate, inFlight, notSent) in looks {
            XCTAssertFalse(body.add(BodyArrival.Sample(at: at * 1000, acked: acked, inFlight: inFlight, notSent: notSent,
                                                       sendWindow: 427_008, minRTT: 66_000, deliveryRate: rate)))
        }
        XCTAssertTrue(body.add(BodyArrival.Sample(at: 969_779_000, acked: end + 1, inFlight: 0, notSent: 0,
                                                  sendWindow: 427_008, minRTT: 66_000, deliveryRate: 54_340)))
        let estimate = try XCTUnwrap(body.arrival(responseStart: nil))
        XCTAssertGreaterThanOrEqual(estimate, (883_635_000 + 967_643_000) / 2 - 33_000, "after the last acknowledged count")
        XCTAssertLessThanOrEqual(estimate, 969_779_000 - 33_000, "no later than one way before the whole was acknowledged")
    }

    /// One of 8 flows sharing a 600 kB/s link: its share is 75 kB/s, but a rate sample of its first burst read
    /// 600 kB/s. The server holds the final odd segment's ACK; the rest after the last acknowledged pair (1,536
    /// bytes) takes 20 ms at the flow's share, 2.6 ms at the fastest rate seen (which put the end 16 ms early).
    func testTheRestArrivesAtTheFlowsShareNotAtItsFastestRateSample() throws {
        let end: UInt64 = 100_000, share = 75_000.0, pair: UInt64 = 2896
        let arrival = Int64(Double(end) / share * 1e9)
        var body = BodyArrival(written: 0)
        var at: Int64 = 0
        while at < arrival + 30 * ms {
            let arrived = UInt64(Double(at) / 1e9 * share)
            let acked = min(arrived / pair * pair, (end - 1448) / pair * pair)
            XCTAssertFalse(body.add(BodyArrival.Sample(at: at, acked: acked, inFlight: end - acked, notSent: 0,
                                                       sendWindow: 1 << 20, deliveryRate: at == 0 ? 600_000 : 75_000)))
            at += 10 * ms
        }
        let estimate = try XCTUnwrap(body.arrival(responseStart: arrival + 30 * ms))
        XCTAssertEqual(Double(estimate - arrival) / 1e6, 0, accuracy: 5, "within 5 ms of the last byte's arrival")
    }

    /// A retransmission after the last look short of the end: the lost bytes arrived when the retransmission did, so
    /// the look that saw the whole body acknowledged (one way before it) is the arrival, not an extrapolation.
    func testARetransmissionNearTheEndIsPlacedByTheWholeAcknowledgement() throws {
        var body = BodyArrival(written: 0)
        _ = body.add(look(10 * ms, acked: 90_000, inFlight: 10_000, notSent: 0))
        _ = body.add(BodyArrival.Sample(at: 220 * ms, acked: 90_000, inFlight: 10_000, notSent: 0, sendWindow: 635_904,
                                        retransmitted: 1448, minRTT: 80_000, deliveryRate: 957_000))
        XCTAssertTrue(body.add(BodyArrival.Sample(at: 262 * ms, acked: 100_000, inFlight: 0, notSent: 0,
                                                  sendWindow: 635_904, retransmitted: 1448, minRTT: 80_000)))
        XCTAssertEqual(try XCTUnwrap(body.arrival(responseStart: nil)), 262 * ms - 40_000)
    }

    /// The shaped target reads at 720 kB/s from a window of 16 KB: the bytes in flight fill the window, and the peer
    /// acknowledges what it read, 20 ms after the last byte arrived. The last byte arrived one way after it left:
    /// between the two looks around the moment nothing was left unsent (capture: 0.76 ms after the first of them).
    func testAWindowBoundSenderEndsWhenTheLastByteLeft() throws {
        var body = BodyArrival(written: 0)
        let window: UInt64 = 15_928
        let end: UInt64 = 2_097_278
        for i in 0..<8 {
            XCTAssertFalse(body.add(look(Int64(i) * 2_100_000, acked: end - 23_454, inFlight: window - 1, notSent: 7527,
                                         window: window, rate: 719_551)))
        }
        XCTAssertTrue(body.add(look(16_800_000, acked: end - 7526, inFlight: 7526, notSent: 0, window: window,
                                    rate: 600_105)), "window-bound: the moment the last byte left is all it takes")
        XCTAssertTrue(body.windowBound)
        XCTAssertTrue(body.isComplete)
        XCTAssertTrue(body.add(look(37_800_000, acked: end, inFlight: 0, notSent: 0, window: window)), "nothing changes")
        let arrival = 14_700_000 + 760_000
        let estimate = try XCTUnwrap(body.arrival(responseStart: 85 * ms))
        XCTAssertEqual(estimate, 14_700_000 + 1_050_000 + 40_000, "the middle of the looks, and half the minimum RTT")
        XCTAssertLessThan(abs(estimate - Int64(arrival)), 2 * ms)
        // Not by the acknowledgements: they came 20 ms later, as the server read.
        XCTAssertLessThan(estimate, 20 * ms)
    }

    /// The shaped target again, under load: most looks found the window (5,792 or 17,376 bytes) full, but the one
    /// before the last byte left caught the congestion window instead (10 segments in flight, 112 bytes unsent, two
    /// segments' room). Still window-bound: the server's capture saw the last byte 0.62 ms after the middle of the
    /// looks around its leaving, and the acknowledgement, of what the server read, came 8 ms after that.
    func testAWindowBoundSenderCaughtAtItsCongestionWindowIsStillWindowBound() throws {
        var body = BodyArrival(written: 0)
        let end: UInt64 = 2_097_924
        var at: Int64 = 0
        func next(acked: UInt64, inFlight: UInt64, notSent: UInt64, window: UInt64) -> Bool {
            at += 2_280_000
            return body.add(look(at, acked: acked, inFlight: inFlight, notSent: notSent, window: window))
        }
        for _ in 0..<10 { XCTAssertFalse(next(acked: end - 43_551, inFlight: 5791, notSent: 37_760, window: 5792)) }
        XCTAssertFalse(next(acked: end - 37_759, inFlight: 15_927, notSent: 21_832, window: 17_376))
        for _ in 0..<2 { XCTAssertFalse(next(acked: end - 37_759, inFlight: 17_375, notSent: 20_384, window: 17_376)) }
        for _ in 0..<10 { XCTAssertFalse(next(acked: end - 20_383, inFlight: 5791, notSent: 14_592, window: 5792)) }
        XCTAssertFalse(next(acked: end - 14_591, inFlight: 14_479, notSent: 112, window: 17_376))
        let leftBetween = (at, at + 2_280_000)
        XCTAssertTrue(next(acked: end - 14_591, inFlight: 14_591, notSent: 0, window: 17_376))
        XCTAssertTrue(body.windowBound, "23 of the 24 looks with bytes unsent found the window full")
        let arrival = (leftBetween.0 + leftBetween.1) / 2 + 620_000
        let estimate = try XCTUnwrap(body.arrival(responseStart: at + 70 * ms))
        XCTAssertLessThan(abs(estimate - arrival), 2 * ms, "not the acknowledgement 8 ms later")
    }

    /// A queue-bound sender whose window was full at one early look only (a receiver's window opening as the
    /// transfer starts) is not window-bound: the queue estimate applies.
    func testOneFullWindowAmongManyLooksIsNotWindowBound() throws {
        var body = BodyArrival(written: 0)
        _ = body.add(look(2 * ms, acked: 0, inFlight: 64_000, notSent: 200_000, window: 64_000))
        for i in 1...9 {
            _ = body.add(look(Int64(2 + 2 * i) * ms, acked: UInt64(i) * 20_000, inFlight: 14_479,
                              notSent: 200_000 - UInt64(i) * 20_000, window: 635_904))
        }
        _ = body.add(look(22 * ms, acked: 200_000, inFlight: 14_479, notSent: 0, window: 635_904))
        XCTAssertFalse(body.windowBound, "1 of 10 looks with bytes unsent found the window full")
    }

    /// A kernel without the peer's window (before 5.4) cannot say window-bound: the queue estimate applies, and it
    /// is still no earlier than the last byte left.
    func testWithoutThePeersWindowTheSenderIsNotWindowBound() throws {
        var body = BodyArrival(written: 0)
        _ = body.add(look(2 * ms, acked: 0, inFlight: 10_000, notSent: 5000, window: nil, rate: 1_000_000_000))
        _ = body.add(look(4 * ms, acked: 0, inFlight: 15_000, notSent: 0, window: nil))
        XCTAssertFalse(body.windowBound)
        XCTAssertEqual(try XCTUnwrap(body.arrival(responseStart: nil)), 3 * ms + 40_000,
                       "15 kB at 1 GB/s from 2 ms is earlier than the last byte left")
    }

    /// The bounds: never after one way before the look that saw the whole body acknowledged or the response's
    /// first byte, never before the body was written; no estimate when no look saw the last byte leave.
    func testBounds() throws {
        var acknowledgedAtOnce = BodyArrival(written: 10 * ms)
        XCTAssertTrue(acknowledgedAtOnce.add(look(12 * ms, acked: 5000, inFlight: 0, notSent: 0)))
        XCTAssertEqual(try XCTUnwrap(acknowledgedAtOnce.arrival(responseStart: nil)), 11 * ms + 40_000)
        XCTAssertTrue(acknowledgedAtOnce.add(look(14 * ms, acked: 5000, inFlight: 0, notSent: 0)), "settled stays")

        var slowRate = BodyArrival(written: 10 * ms)
        _ = slowRate.add(look(12 * ms, acked: 0, inFlight: 50_000, notSent: 0, rate: 1000))
        XCTAssertEqual(try XCTUnwrap(slowRate.arrival(responseStart: 20 * ms)), 20 * ms - 40_000,
                       "50 s at the rate, but the response began at 20 ms")

        var quickLook = BodyArrival(written: 10 * ms)
        _ = quickLook.add(BodyArrival.Sample(at: 10 * ms, acked: 0, inFlight: 10, notSent: 0, minRTT: 4 * ms))
        XCTAssertEqual(try XCTUnwrap(quickLook.arrival(responseStart: 11 * ms)), 10 * ms, "not before it was written")

        var unsent = BodyArrival(written: 10 * ms)
        _ = unsent.add(look(12 * ms, acked: 0, inFlight: 4000, notSent: 4000))
        XCTAssertNil(unsent.arrival(responseStart: 30 * ms))
    }

    /// Looks come a quarter of the way to the next moment that matters at twice the fastest rate seen, 2 to 10 ms
    /// apart: the last byte leaving (the unsent bytes), then the rest arriving (the unacknowledged ones).
    func testTheNextLookNearsWithTheEnd() {
        var body = BodyArrival(written: 0)
        XCTAssertEqual(body.nextLook, 2 * ms, "no look yet")
        _ = body.add(look(1 * ms, acked: 0, inFlight: 50_000, notSent: 1_000_000, rate: 1_000_000))
        XCTAssertEqual(body.nextLook, 11 * ms, "1 MB unsent at 2 MB/s: half a second away; the farthest look is 10 ms")
        _ = body.add(look(11 * ms, acked: 900_000, inFlight: 50_000, notSent: 40_000, rate: 500_000))
        XCTAssertEqual(body.nextLook, 21 * ms, "40 kB at twice the fastest rate (1 MB/s) is 20 ms: a look in 10 ms")
        _ = body.add(look(21 * ms, acked: 920_000, inFlight: 50_000, notSent: 16_000, rate: 500_000))
        XCTAssertEqual(body.nextLook, 25 * ms, "16 ms at twice the fastest rate... 8 ms: a look in 4 ms")
        _ = body.add(look(25 * ms, acked: 1_000_000, inFlight: 50_000, notSent: 0, rate: 1_000_000))
        XCTAssertEqual(body.nextLook, 35 * ms, "the rest (50 kB) arrives in 25 ms or more: a look in 10 ms")
        _ = body.add(look(35 * ms, acked: 1_044_000, inFlight: 6000, notSent: 0, rate: 1_000_000))
        XCTAssertEqual(body.nextLook, 37 * ms, "3 ms to go at the fastest: the closest look, 2 ms")
        var noRate = BodyArrival(written: 0)
        _ = noRate.add(look(1 * ms, acked: 0, inFlight: 50_000, notSent: 1_000_000, rate: nil))
        XCTAssertEqual(noRate.nextLook, 3 * ms)
    }

    /// A kernel snapshot becomes a look with the bytes in flight from its counters, or none before 4.19.
    func testALookFromTheKernelsStruct() throws {
        var bytes = [UInt8](repeating: 0, count: 232)
        func put32(_ value: UInt32, at offset: Int) { withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) } }
        func put64(_ value: UInt64, at offset: Int) { withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) } }
        put32(1448, at: 16)
        put64(10_000, at: 120)  // bytes_acked
        put32(3000, at: 144)    // notsent
        put32(250, at: 148)     // min_rtt µs
        put64(2_000_000, at: 160)
        put64(17_000, at: 200)  // bytes_sent
        put64(2000, at: 208)    // bytes_retrans
        put32(65_535, at: 228)
        let info = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 232) })
        let sample = try XCTUnwrap(BodyArrival.Sample(info, at: 7))
        XCTAssertEqual(sample, BodyArrival.Sample(at: 7, acked: 10_000, inFlight: 5000, notSent: 3000, sendWindow: 65_535,
                                                  retransmitted: 2000, segmentSize: 1448, minRTT: 250_000, deliveryRate: 2_000_000))
        let old = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 192) })
        XCTAssertNil(BodyArrival.Sample(old, at: 7), "no bytes_sent before 4.19")
    }
}
