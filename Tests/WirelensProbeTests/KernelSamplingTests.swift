import WirelensCore
import XCTest
@testable import WirelensProbe

/// `KernelSampling` keeps a transfer's kernel snapshots and says when the next is due, without a socket. Oracle: the
/// architecture's rule (a snapshot every `--tcp-sample` while the transfer has its connection's socket; a resend after
/// a dead connection starts its counters again) and TCP_INFO's field offsets in <linux/tcp.h>.
final class KernelSamplingTests: XCTestCase {
    /// A TCP_INFO answer of kernel 4.19's length with bytes_acked (offset 120) set.
    private func info(acked: UInt64) throws -> TCPInfo {
        var bytes = [UInt8](repeating: 0, count: 232)
        withUnsafeBytes(of: acked.littleEndian) { bytes.replaceSubrange(120..<128, with: $0) }
        return try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 232) })
    }

    func testASnapshotIsDueOneIntervalAfterTheLastOnlyWhileTheSocketIsKnown() throws {
        var kernel = KernelSampling()
        XCTAssertNil(kernel.nextSample(intervalMicros: 500))
        XCTAssertFalse(kernel.isDue(at: .max, intervalMicros: 500), "no socket, nothing to read")
        kernel.socket = 7
        kernel.add(try info(acked: 10), at: 1_000_000)
        // 500 µs after 1 ms (in ns): 1.5 ms.
        XCTAssertEqual(kernel.nextSample(intervalMicros: 500), 1_500_000)
        XCTAssertFalse(kernel.isDue(at: 1_499_999, intervalMicros: 500))
        XCTAssertTrue(kernel.isDue(at: 1_500_000, intervalMicros: 500))
        kernel.socket = nil
        XCTAssertFalse(kernel.isDue(at: 2_000_000, intervalMicros: 500), "libcurl closed it")
    }

    func testATransfersFactsAreItsSnapshotsDifferenceMarkedSharedWithTheHandshakeRTT() throws {
        var kernel = KernelSampling()
        kernel.socket = 7
        kernel.add(try info(acked: 1000), at: 1_000_000)
        kernel.add(try info(acked: 6000), at: 3_000_000)
        kernel.shared = true
        kernel.handshakeRTT = 250
        let totals = try XCTUnwrap(kernel.totals)
        let facts = try XCTUnwrap(kernel.facts())
        XCTAssertEqual(facts.bytesAcked, 5000, "6000 - 1000 acknowledged over the transfer")
        XCTAssertTrue(facts.shared)
        XCTAssertEqual(facts.handshakeRTT, 250)
        XCTAssertEqual(totals.bytesAcked, 6000, "the connection's own count at the last snapshot")
    }

    func testARecordWithoutFactsKeepsNoTotals() throws {
        var kernel = KernelSampling()
        kernel.keepsFacts = false
        kernel.add(try info(acked: 1000), at: 1)
        XCTAssertNil(kernel.totals)
    }

    func testStartingAgainForgetsTheDeadAttemptButKeepsTheRunsChoices() throws {
        var kernel = KernelSampling()
        kernel.readsTCP = false
        kernel.multiplexes = true
        kernel.madeSocket = 5
        kernel.socket = 5
        kernel.socketKnown = true
        kernel.shared = true
        kernel.handshakeRTT = 90
        kernel.add(try info(acked: 1), at: 10)
        kernel.startAgain()
        XCTAssertNil(kernel.madeSocket)
        XCTAssertNil(kernel.socket)
        XCTAssertFalse(kernel.socketKnown)
        XCTAssertFalse(kernel.shared)
        XCTAssertNil(kernel.handshakeRTT)
        XCTAssertTrue(kernel.tcp.isEmpty)
        XCTAssertFalse(kernel.readsTCP)
        XCTAssertTrue(kernel.multiplexes)
    }
}
