import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensReport

/// The hand-written JSON of `tcp` and `diagnosis` against the Codable bytes, over seeded random values that reach
/// every field present and absent.
final class KernelFactsJSONWriterTests: XCTestCase {
    private func maybe<T>(_ value: T, _ g: inout SplitMix64) -> T? { Bool.random(using: &g) ? value : nil }

    private func facts(_ g: inout SplitMix64) -> TCPFacts {
        let samples = (0..<Int.random(in: 0...5, using: &g)).map { i in
            TCPSample(at: Int64(i) * 100_000, rtt: .random(in: 0...500_000, using: &g),
                      congestionWindow: .random(in: 1...10_000, using: &g),
                      deliveryRate: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g),
                      appLimited: maybe(Bool.random(using: &g), &g), peerWindow: maybe(.random(in: 0...UInt32.max, using: &g), &g),
                      unacked: .random(in: 0...1000, using: &g), notSent: maybe(.random(in: 0...1 << 20, using: &g), &g),
                      acked: maybe(.random(in: 0...UInt64(1) << 50, using: &g), &g),
                      received: maybe(.random(in: 0...UInt64.max, using: &g), &g))
        }
        var f = TCPFacts(
            span: .random(in: 0...Int64(1) << 40, using: &g), bytesSent: maybe(.random(in: 0...UInt64.max, using: &g), &g),
            bytesAcked: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), bytesReceived: maybe(7, &g),
            bytesRetransmitted: maybe(.random(in: 0...1 << 30, using: &g), &g), segmentsRetransmitted: .random(in: 0...UInt32.max, using: &g),
            outOfOrderPacketsIn: maybe(3, &g), minRTT: maybe(.random(in: 0...UInt32.max, using: &g), &g),
            smoothedRTT: .random(in: 0...UInt32.max, using: &g), maxRTT: 1, receiveRTT: 0, congestionWindowMin: 10,
            congestionWindowMax: 80, sendMSS: 1448, pathMTU: 1500, peerWindowMin: maybe(65535, &g),
            deliveryRateMax: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), deliveryRateMedian: maybe(12, &g),
            peerWindowMedian: maybe(0, &g), zeroWindowShare: maybe(.random(in: 0...1, using: &g), &g),
            busy: maybe(.random(in: 0...UInt64(1) << 40, using: &g), &g), receiveWindowLimited: maybe(5, &g),
            sendBufferLimited: maybe(0, &g), samples: samples)
        f.shared = Bool.random(using: &g)
        f.sendBuffer = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        f.handshakeRTT = maybe(.random(in: 0...UInt32.max, using: &g), &g)
        return f
    }

    private func diagnosis(_ g: inout SplitMix64) -> Diagnosis {
        var e = Diagnosis.Evidence(direction: ["upload", "download", "none"].randomElement(using: &g) ?? "none")
        e.movingTime = maybe(.random(in: 0...Int64(1) << 40, using: &g), &g)
        e.receiveWindowLimitedShare = maybe(.random(in: 0...1, using: &g), &g)
        e.sendBufferLimitedShare = maybe(0.5, &g)
        e.bufferBoundShare = maybe(.random(in: 0...1, using: &g), &g)
        e.sendBuffer = maybe(8192, &g)
        e.segmentsInFlight = maybe(1, &g)
        e.segmentSize = maybe(65_483, &g)
        e.congestionWindow = maybe(18, &g)
        e.networkShare = maybe(.random(in: 0...1, using: &g), &g)
        e.idleShare = maybe(0, &g)
        e.wait = maybe(.random(in: 0...Int64(1) << 30, using: &g), &g)
        e.waitShare = maybe(.random(in: 0...1, using: &g), &g)
        e.handshakes = maybe(48_000, &g)
        e.rtt = maybe(.random(in: 0...1_000_000, using: &g), &g)
        e.minRTT = maybe(11, &g)
        e.receiveRTT = maybe(0, &g)
        e.roundTrips = maybe(.random(in: 0...1e6, using: &g), &g)
        e.retransmittedShare = maybe(1.0 / 3, &g)
        e.outOfOrderPacketsIn = maybe(31, &g)
        e.bodyRate = maybe(.random(in: 0...1e10, using: &g), &g)
        e.deliveryRate = maybe(1_300_000, &g)
        e.peerWindow = maybe(16_384, &g)
        e.zeroWindowShare = maybe(0.25, &g)
        e.windowCap = maybe(.random(in: 0...1e9, using: &g), &g)
        e.sharedConnection = Bool.random(using: &g)
        e.proxyHop = Bool.random(using: &g)
        e.reason = maybe("a \"quoted\" reason\n", &g)
        return Diagnosis(verdict: Verdict.allCases.randomElement(using: &g) ?? .unknown, evidence: e)
    }

    func testSameBytesAsTheCodablePath() throws {
        var g = SplitMix64(seed: 42)
        let encoder = StreamingJSONEncoder(prettyPrinted: false)
        for _ in 0..<500 {
            let f = facts(&g)
            var ours: [UInt8] = []
            KernelFactsJSONWriter.append(f, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: try encoder.encode(f), as: UTF8.self))
            let d = diagnosis(&g)
            ours = []
            KernelFactsJSONWriter.append(d, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: try encoder.encode(d), as: UTF8.self))
        }
    }
}
