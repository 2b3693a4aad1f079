import Foundation
import XCTest
@testable import WirelensCapture
import WirelensTestSupport

/// The decoder, the tracker and the HTTP parser survive 10 000 mutated captures; libpcap's reading of
/// mutated files ends in a CaptureError or a report, never a crash. Seeded, so a failure repeats.
final class MutationFuzzTests: XCTestCase {
    /// A keep-alive connection with a pipelined pair, a chunked response and a close, as Ethernet frames.
    private func seedPackets() -> [[UInt8]] {
        let b = FrameBuilder()
        var frames: [[UInt8]] = []
        var c: UInt32 = 0xffff_ff00, s: UInt32 = 77
        frames.append(b.frame(seq: c, flags: .syn, windowScale: 7))
        frames.append(b.frame(seq: s, ack: c &+ 1, flags: [.syn, .ack], windowScale: 7, reverse: true))
        c &+= 1
        s &+= 1
        frames.append(b.frame(seq: c, ack: s, flags: .ack))
        let requests = Array("GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyz".utf8)
        frames.append(b.frame(seq: c, ack: s, flags: [.ack, .psh], payload: requests))
        c &+= UInt32(requests.count)
        let responses = [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n",
        ].map { Array($0.utf8) }
        for r in responses {
            frames.append(b.frame(seq: s, ack: c, flags: [.ack, .psh], payload: r, reverse: true))
            s &+= UInt32(r.count)
            frames.append(b.frame(seq: c, ack: s, flags: .ack))
        }
        frames.append(b.frame(seq: c, ack: s, flags: [.fin, .ack]))
        frames.append(b.frame(seq: s, ack: c &+ 1, flags: [.fin, .ack], reverse: true))
        frames.append(b.frame(seq: c &+ 1, ack: s &+ 1, flags: .ack))
        return frames
    }

    private func mutate(_ frames: [[UInt8]], using rng: inout SplitMix64) -> [[UInt8]] {
        var out = frames
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let i = Int.random(in: 0..<out.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1, 2:  // flip bytes
                for _ in 0..<Int.random(in: 1...3, using: &rng) where !out[i].isEmpty {
                    out[i][Int.random(in: 0..<out[i].count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 3: out[i] = Array(out[i].prefix(Int.random(in: 0...out[i].count, using: &rng)))
            case 4: out.insert(out[i], at: Int.random(in: 0...out.count, using: &rng))
            default: out.swapAt(i, Int.random(in: 0..<out.count, using: &rng))
            }
        }
        return out
    }

    func testTenThousandMutatedCapturesAnalyseWithoutCrashing() {
        var rng = SplitMix64(seed: 0x5eed_0005)
        let seed = seedPackets()
        var exchangesSeen = 0
        for _ in 0..<10_000 {
            var analysis = CaptureAnalyzer.Analysis(linkType: .ethernet)
            var time: Int64 = 1_700_000_000_000_000_000
            for frame in mutate(seed, using: &rng) {
                time += Int64.random(in: 0...2_000_000, using: &rng)
                frame.withUnsafeBytes {
                    analysis.add(CapturedPacket(timestampNanos: time, originalLength: frame.count + 4, bytes: $0))
                }
            }
            var report = CaptureReport(file: "fuzz", filter: nil, linkType: .ethernet, snapshotLength: 65535)
            analysis.complete(into: &report)
            exchangesSeen += report.summary.exchanges
            XCTAssertLessThanOrEqual(report.summary.exchanges, 8)
        }
        XCTAssertGreaterThan(exchangesSeen, 0, "the mutations left some captures readable")
    }

    func testMutatedFilesEndInAnErrorOrAReport() throws {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
        var file = le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(1)
        for (i, frame) in seedPackets().enumerated() {
            file += le32(1_700_000_000 + UInt32(i)) + le32(0) + le32(UInt32(frame.count)) + le32(UInt32(frame.count)) + frame
        }
        let path = LoopbackCapture.temporaryPath("fuzz.pcap")
        defer { unlink(path) }
        var rng = SplitMix64(seed: 0x5eed_f11e)
        var errors = 0, reports = 0
        for round in 0..<400 {
            var bytes = file
            for _ in 0..<(round == 0 ? 0 : Int.random(in: 1...6, using: &rng)) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if round % 5 == 4 { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))) }
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            do {
                let outcome = try CaptureAnalyzer.analyze(path: path)
                if outcome.readError != nil { errors += 1 } else { reports += 1 }
                if round == 0 { XCTAssertEqual(outcome.report.summary.exchanges, 2) }
            } catch {
                errors += 1
            }
        }
        XCTAssertGreaterThan(errors, 0)
        XCTAssertGreaterThan(reports, 0)
    }
}
