import Foundation
import XCTest
import WirelensCore

/// `TCPInfo` against the layout of the kernel's `struct tcp_info`, as the C compiler lays out `<linux/tcp.h>`.
final class TCPInfoTests: XCTestCase {
    /// A C program fills every field with its own value and prints the struct's bytes, its size and the values.
    private static let oracleSource = #"""
    #include <stdio.h>
    #include <string.h>
    #include <linux/tcp.h>
    int main(void) {
        struct tcp_info t; memset(&t, 0, sizeof t);
        t.tcpi_state = 1; t.tcpi_retransmits = 2; t.tcpi_delivery_rate_app_limited = 1;
        t.tcpi_snd_wscale = 7; t.tcpi_rcv_wscale = 9;
        t.tcpi_rto = 204000; t.tcpi_snd_mss = 1448; t.tcpi_unacked = 31; t.tcpi_lost = 3; t.tcpi_retrans = 2;
        t.tcpi_last_data_sent = 44; t.tcpi_last_data_recv = 52; t.tcpi_pmtu = 1500; t.tcpi_rcv_ssthresh = 64111; t.tcpi_rcv_mss = 1412; t.tcpi_rtt = 48123;
        t.tcpi_rttvar = 1234; t.tcpi_snd_ssthresh = 88; t.tcpi_snd_cwnd = 120; t.tcpi_rcv_rtt = 50001;
        t.tcpi_rcv_space = 65483; t.tcpi_total_retrans = 17;
        t.tcpi_bytes_acked = 5000000001ULL; t.tcpi_bytes_received = 6000000002ULL; t.tcpi_notsent_bytes = 4096;
        t.tcpi_min_rtt = 47001; t.tcpi_data_segs_in = 152; t.tcpi_data_segs_out = 156;
        t.tcpi_delivery_rate = 1300000; t.tcpi_busy_time = 9000000; t.tcpi_rwnd_limited = 8200000;
        t.tcpi_sndbuf_limited = 123; t.tcpi_delivered = 192; t.tcpi_bytes_sent = 7000000003ULL;
        t.tcpi_bytes_retrans = 140000; t.tcpi_reord_seen = 220; t.tcpi_rcv_ooopack = 224; t.tcpi_snd_wnd = 65535;
        printf("%zu\n", sizeof t);
        const unsigned char *p = (const unsigned char *)&t;
        for (size_t i = 0; i < sizeof t; i++) printf("%02x", p[i]);
        printf("\n");
        return 0;
    }
    """#

    /// The bytes of a `struct tcp_info` laid out by the C compiler, filled as `oracleSource` says.
    private func kernelLayoutBytes() throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wl-tcpinfo-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("layout.c")
        let binary = dir.appendingPathComponent("layout")
        try Self.oracleSource.write(to: source, atomically: true, encoding: .utf8)
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = ["cc", "-o", binary.path, source.path]
        try compile.run()
        compile.waitUntilExit()
        XCTAssertEqual(compile.terminationStatus, 0, "cc could not compile the <linux/tcp.h> oracle")
        let run = Process()
        let out = Pipe()
        run.executableURL = binary
        run.standardOutput = out
        try run.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        run.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let size = Int(lines[0]) ?? 0
        var bytes: [UInt8] = []
        var hex = lines[1][...]
        while hex.count >= 2 {
            bytes.append(UInt8(hex.prefix(2), radix: 16) ?? 0)
            hex = hex.dropFirst(2)
        }
        XCTAssertEqual(bytes.count, size)
        return bytes
    }

    func testReadsEveryFieldAtTheKernelHeadersOffsets() throws {
        let bytes = try kernelLayoutBytes()
        let info = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: $0.count) })
        XCTAssertEqual(info.state, 1)
        XCTAssertEqual(info.retransmits, 2)
        XCTAssertEqual(info.rto, 204_000)
        XCTAssertEqual(info.sendMSS, 1448)
        XCTAssertEqual(info.unacked, 31)
        XCTAssertEqual(info.lost, 3)
        XCTAssertEqual(info.retrans, 2)
        XCTAssertEqual(info.lastDataSentMillis, 44)
        XCTAssertEqual(info.lastDataReceivedMillis, 52)
        XCTAssertEqual(info.pathMTU, 1500)
        XCTAssertEqual(info.rtt, 48123)
        XCTAssertEqual(info.rttVariance, 1234)
        XCTAssertEqual(info.sendSSThreshold, 88)
        XCTAssertEqual(info.slowStartThreshold, 88)
        XCTAssertEqual(info.congestionWindow, 120)
        XCTAssertEqual(info.receiveRTT, 50001)
        XCTAssertEqual(info.receiveSpace, 65483)
        XCTAssertEqual(info.totalRetrans, 17)
        XCTAssertEqual(info.bytesAcked, 5_000_000_001)
        XCTAssertEqual(info.bytesReceived, 6_000_000_002)
        XCTAssertEqual(info.notSentBytes, 4096)
        XCTAssertEqual(info.minRTT, 47001)
        XCTAssertEqual(info.dataSegmentsIn, 152)
        XCTAssertEqual(info.dataSegmentsOut, 156)
        XCTAssertEqual(info.deliveryRate, 1_300_000)
        XCTAssertEqual(info.deliveryRateAppLimited, true)
        XCTAssertEqual(info.busyTime, 9_000_000)
        XCTAssertEqual(info.receiveWindowLimited, 8_200_000)
        XCTAssertEqual(info.sendBufferLimited, 123)
        XCTAssertEqual(info.delivered, 192)
        XCTAssertEqual(info.bytesSent, 7_000_000_003)
        XCTAssertEqual(info.bytesRetrans, 140_000)
        XCTAssertEqual(info.reorderingSeen, 220)
        XCTAssertEqual(info.outOfOrderPacketsIn, 224)
        XCTAssertEqual(info.sendWindow, 65535)
        XCTAssertEqual(info.receiveSSThreshold, 64111)
        XCTAssertEqual(info.receiveMSS, 1412)
    }

    /// An older kernel returns a shorter struct: the fields past its length are nil, never 0.
    func testFieldsPastTheReturnedLengthAreNil() throws {
        let bytes = try kernelLayoutBytes()
        // 160 bytes: a 4.6 kernel (up to tcpi_data_segs_out), before the delivery rate.
        let old = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 160) })
        XCTAssertEqual(old.bytesAcked, 5_000_000_001)
        XCTAssertEqual(old.minRTT, 47001)
        XCTAssertEqual(old.dataSegmentsOut, 156)
        XCTAssertNil(old.deliveryRate)
        XCTAssertNil(old.deliveryRateAppLimited, "the flag's bit means nothing before the rate exists")
        XCTAssertNil(old.busyTime)
        XCTAssertNil(old.receiveWindowLimited)
        XCTAssertNil(old.sendBufferLimited)
        XCTAssertNil(old.bytesSent)
        XCTAssertNil(old.sendWindow)
        // 192 bytes: a 4.10 kernel has the stopwatches but not bytes sent or the peer's window.
        let chrono = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 192) })
        XCTAssertEqual(chrono.receiveWindowLimited, 8_200_000)
        XCTAssertNil(chrono.delivered)
        XCTAssertNil(chrono.bytesRetrans)
        // Shorter than the oldest struct: no snapshot at all.
        XCTAssertNil(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 100) })
    }

    func testAnUnsetSlowStartThresholdIsNil() throws {
        var bytes = try kernelLayoutBytes()
        withUnsafeBytes(of: UInt32(0x7fff_ffff).littleEndian) { bytes.replaceSubrange(76..<80, with: $0) }
        let info = try XCTUnwrap(bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: $0.count) })
        XCTAssertNil(info.slowStartThreshold)
    }
}
