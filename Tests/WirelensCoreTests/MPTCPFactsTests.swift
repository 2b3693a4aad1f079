import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// `MPTCPInfo`, `MPTCPSubflowData`, `SubflowAddresses` and `MPTCPFacts.of` against the layout of the kernel's
/// structs as the C compiler lays out `<linux/mptcp.h>` and `<linux/tcp.h>`.
final class MPTCPFactsTests: XCTestCase {
    /// A C program fills an `MPTCP_INFO` answer, an `MPTCP_TCPINFO` answer of two subflows and an
    /// `MPTCP_SUBFLOW_ADDRS` answer of the same two (one IPv4, one IPv6) and prints each as one hex line.
    private static let oracleSource = #"""
    #include <stdio.h>
    #include <string.h>
    #include <arpa/inet.h>
    #include <linux/tcp.h>
    #include <linux/mptcp.h>
    static void hex(const void *p, size_t n) {
        const unsigned char *b = p;
        for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
        printf("\n");
    }
    int main(void) {
        struct mptcp_info info; memset(&info, 0, sizeof info);
        info.mptcpi_subflows = 1; info.mptcpi_flags = 2; info.mptcpi_token = 0xdeadbeef;
        hex(&info, sizeof info);
        struct mptcp_info fell = info; fell.mptcpi_flags = 1;
        hex(&fell, sizeof fell);

        struct { struct mptcp_subflow_data d; struct tcp_info t[2]; } tcp; memset(&tcp, 0, sizeof tcp);
        tcp.d.size_subflow_data = sizeof tcp.d; tcp.d.num_subflows = 2;
        tcp.d.size_kernel = sizeof(struct tcp_info); tcp.d.size_user = sizeof(struct tcp_info);
        tcp.t[0].tcpi_state = 1; tcp.t[0].tcpi_rtt = 12100; tcp.t[0].tcpi_total_retrans = 3;
        tcp.t[0].tcpi_bytes_sent = 310; tcp.t[0].tcpi_bytes_received = 6000000;
        tcp.t[1].tcpi_state = 1; tcp.t[1].tcpi_rtt = 20500; tcp.t[1].tcpi_total_retrans = 0;
        tcp.t[1].tcpi_bytes_sent = 0; tcp.t[1].tcpi_bytes_received = 3000000;
        hex(&tcp, sizeof tcp);

        struct { struct mptcp_subflow_data d; struct mptcp_subflow_addrs a[2]; } addrs; memset(&addrs, 0, sizeof addrs);
        addrs.d.size_subflow_data = sizeof addrs.d; addrs.d.num_subflows = 2;
        addrs.d.size_kernel = sizeof(struct mptcp_subflow_addrs); addrs.d.size_user = sizeof(struct mptcp_subflow_addrs);
        addrs.a[0].sin_local.sin_family = AF_INET; addrs.a[0].sin_local.sin_port = htons(40001);
        inet_pton(AF_INET, "198.18.1.1", &addrs.a[0].sin_local.sin_addr);
        addrs.a[0].sin_remote.sin_family = AF_INET; addrs.a[0].sin_remote.sin_port = htons(8080);
        inet_pton(AF_INET, "198.18.2.1", &addrs.a[0].sin_remote.sin_addr);
        addrs.a[1].sin6_local.sin6_family = AF_INET6; addrs.a[1].sin6_local.sin6_port = htons(40002);
        inet_pton(AF_INET6, "2001:db8::1", &addrs.a[1].sin6_local.sin6_addr);
        addrs.a[1].sin6_remote.sin6_family = AF_INET6; addrs.a[1].sin6_remote.sin6_port = htons(8443);
        inet_pton(AF_INET6, "2001:db8::2", &addrs.a[1].sin6_remote.sin6_addr);
        hex(&addrs, sizeof addrs);
        return 0;
    }
    """#

    /// The four answers `oracleSource` prints: MPTCP_INFO, the same fallen back, MPTCP_TCPINFO, MPTCP_SUBFLOW_ADDRS.
    private func kernelLayoutAnswers() throws -> [[UInt8]] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wl-mptcp-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("layout.c").path
        let binary = dir.appendingPathComponent("layout").path
        try Self.oracleSource.write(toFile: source, atomically: true, encoding: .utf8)
        let compile = try ProcessRunner.run("/usr/bin/env", ["cc", "-o", binary, source], timeout: 60)
        XCTAssertEqual(compile.status, 0, "cc could not compile the <linux/mptcp.h> oracle: \(compile.stderr)")
        let run = try ProcessRunner.run(binary, [], timeout: 10)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4)
        return lines.map { line in
            stride(from: 0, to: line.count - 1, by: 2).map { i in
                let start = line.index(line.startIndex, offsetBy: i)
                return UInt8(line[start..<line.index(start, offsetBy: 2)], radix: 16) ?? 0
            }
        }
    }

    func testReadsTheAnswersAtTheKernelHeadersOffsets() throws {
        let answers = try kernelLayoutAnswers()
        let info = try XCTUnwrap(MPTCPInfo(kernelBytes: answers[0][...]))
        XCTAssertEqual(info.additionalSubflows, 1)
        XCTAssertEqual(info.flags, 2)
        XCTAssertEqual(info.token, 0xdeadbeef)
        XCTAssertFalse(info.fellBack)
        XCTAssertTrue(try XCTUnwrap(MPTCPInfo(kernelBytes: answers[1][...])).fellBack)

        let tcp = try XCTUnwrap(MPTCPSubflowData(kernelBytes: answers[2], length: answers[2].count))
        XCTAssertEqual(tcp.subflowCount, 2)
        let infos = tcp.tcpInfos
        XCTAssertEqual(infos.map(\.rtt), [12100, 20500])
        XCTAssertEqual(infos.map(\.totalRetrans), [3, 0])
        XCTAssertEqual(infos.map(\.bytesSent), [310, 0])
        XCTAssertEqual(infos.map(\.bytesReceived), [6_000_000, 3_000_000])

        let addrs = try XCTUnwrap(MPTCPSubflowData(kernelBytes: answers[3], length: answers[3].count))
        XCTAssertEqual(addrs.kernelElementSize, SubflowAddresses.byteCount)
        XCTAssertEqual(addrs.addresses, [
            SubflowAddresses(localAddress: "198.18.1.1", localPort: 40001, remoteAddress: "198.18.2.1", remotePort: 8080),
            SubflowAddresses(localAddress: "2001:db8::1", localPort: 40002, remoteAddress: "2001:db8::2", remotePort: 8443),
        ])

        let download = MPTCPFacts.of(info: info, tcpInfo: tcp, addresses: addrs, sendsBody: false)
        XCTAssertTrue(download.negotiated)
        XCTAssertEqual(download.subflows.map(\.localPort), [40001, 40002])
        XCTAssertEqual(download.subflows.map(\.remoteAddress), ["198.18.2.1", "2001:db8::2"])
        XCTAssertEqual(download.subflows.map(\.rtt), [12100, 20500])
        XCTAssertEqual(download.subflows.map(\.retransmissions), [3, 0])
        XCTAssertEqual(try XCTUnwrap(download.subflows[0].bodyShare), 2.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(download.subflows[1].bodyShare), 1.0 / 3, accuracy: 1e-12)
        // An upload's share is of the bytes sent: all on the first subflow here.
        let upload = MPTCPFacts.of(info: info, tcpInfo: tcp, addresses: addrs, sendsBody: true)
        XCTAssertEqual(upload.subflows.map(\.bodyShare), [1, 0])
        // A connection that fell back (its MPTCP_INFO flag, or MPTCP_INFO refused) has no subflows.
        let fell = try XCTUnwrap(MPTCPInfo(kernelBytes: answers[1][...]))
        XCTAssertEqual(MPTCPFacts.of(info: fell, tcpInfo: tcp, addresses: addrs, sendsBody: false),
                       MPTCPFacts(negotiated: false, subflows: []))
        XCTAssertEqual(MPTCPFacts.of(info: nil, tcpInfo: nil, addresses: nil, sendsBody: false),
                       MPTCPFacts(negotiated: false, subflows: []))
    }

    /// The kernel lists more subflows than fit, or returns a shorter answer than the buffer: only whole elements are
    /// read; a header without room, or elements of size 0, is no answer.
    func testReadsOnlyTheElementsTheAnswerHolds() throws {
        let answers = try kernelLayoutAnswers()
        var three = answers[3]
        three[4] = 3  // num_subflows: 3, two in the buffer
        XCTAssertEqual(try XCTUnwrap(MPTCPSubflowData(kernelBytes: three, length: three.count)).elements.count, 2)
        let one = try XCTUnwrap(MPTCPSubflowData(kernelBytes: answers[3], length: 16 + SubflowAddresses.byteCount + 10))
        XCTAssertEqual(one.subflowCount, 2)
        XCTAssertEqual(one.addresses.count, 1)
        XCTAssertNil(MPTCPSubflowData(kernelBytes: answers[3], length: 15))
        var zero = answers[2]
        zero[12] = 0; zero[13] = 0
        XCTAssertNil(MPTCPSubflowData(kernelBytes: zero, length: zero.count))
        XCTAssertNil(MPTCPInfo(kernelBytes: answers[0][..<15]))
        // The request the reader hands the kernel: size_subflow_data 16, num_subflows and size_kernel 0, size_user.
        let request = MPTCPSubflowData.request(elementSize: 236, capacity: 2)
        XCTAssertEqual(request.count, 16 + 2 * 236)
        XCTAssertEqual(Array(request[0..<16]), [16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 236, 0, 0, 0])
    }
}
