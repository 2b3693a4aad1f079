import Foundation
import WirelensTestSupport
import XCTest

/// `wirelens target --mptcp`: the target's listening socket is Multipath TCP, so `probe --mptcp` negotiates it. Each
/// test runs in namespaces of its own (scripts/netpath.sh, no rate limit), whose MPTCP counters nothing else moves:
/// the oracles are the kernel's listing of MPTCP sockets (`ss -M`) and its MPTcpExt counters. Needs root (CI runs as
/// root): without it each test fails with the reason.
final class MultipathTargetTests: XCTestCase {
    private static let size = 1_000_000

    /// Starts `wirelens target ARGUMENTS --listen HOST:0` in `namespace`; the process and its port.
    private func target(_ path: NetworkPath, in namespace: String, host: String, _ arguments: [String]) throws
        -> (ServerProcess, Int) {
        let server = try path.process(in: namespace, CLIHarness.binary,
                                      ["target", "--listen", "\(host):0"] + arguments)
        return (server, try server.listeningPort(of: "wirelens target", host: host, seconds: 20))
    }

    /// The local addresses of the listening MPTCP sockets in `namespace`, as the kernel lists them (`ss -HlnM`).
    private func multipathListeners(_ path: NetworkPath, in namespace: String) throws -> [String] {
        let ss = try path.run(in: namespace, "/usr/bin/ss", ["-HlnM"], timeout: 10)
        XCTAssertEqual(ss.status, 0, ss.stderr)
        return ss.stdout.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            return columns.count >= 4 ? String(columns[3]) : nil
        }
    }

    /// A target with `--mptcp` on 127.0.0.1: the kernel lists its listening socket among the MPTCP ones, and a
    /// `probe --mptcp` on the same loopback negotiates MPTCP (the kernel's MPCapableSYNRX, SYNs with MP_CAPABLE an
    /// MPTCP listener took, grows by exactly one) and reports one subflow, the connection's own, with the whole body.
    func testTargetWithMPTCPListensAsMPTCPAndAProbeNegotiatesIt() throws {
        let path = try NetworkPath.up()
        defer { path.down() }
        let namespace = path.serverNamespace
        let (server, port) = try target(path, in: namespace, host: "127.0.0.1", ["--mptcp"])
        defer { server.kill() }
        XCTAssertEqual(try multipathListeners(path, in: namespace), ["127.0.0.1:\(port)"])
        XCTAssertEqual(server.stderr, "", "no fallback line")
        let before = try KernelCounters.mptcp(in: path, namespace: namespace)
        let tx = try CLIHarness.probe(in: path, namespace: namespace,
                                      ["--mptcp", "http://127.0.0.1:\(port)/bytes/\(Self.size)"])
        let after = try KernelCounters.mptcp(in: path, namespace: namespace)
        XCTAssertEqual(try after.value("MPCapableSYNRX") - before.value("MPCapableSYNRX"), 1,
                       "the target's listener took one MP_CAPABLE SYN")
        XCTAssertEqual(try after.value("MPCapableFallbackSYNACK"), try before.value("MPCapableFallbackSYNACK"))
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        let mptcp = try XCTUnwrap(tx["mptcp"] as? [String: Any], "no mptcp member: \(tx)")
        XCTAssertEqual(mptcp["negotiated"] as? Bool, true)
        let subflows = try XCTUnwrap(mptcp["subflows"] as? [[String: Any]])
        XCTAssertEqual(subflows.count, 1, "one path, one subflow: \(subflows)")
        XCTAssertEqual(subflows.first?["remotePort"] as? Int, port)
    }

    /// The same target without `--mptcp`: no MPTCP listener in the kernel's listing, and a `probe --mptcp` falls back
    /// (the kernel counts one MPCapableFallbackSYNACK and no MPCapableSYNRX): `negotiated: false`, the body whole.
    func testTargetWithoutMPTCPMakesAProbeFallBack() throws {
        let path = try NetworkPath.up()
        defer { path.down() }
        let namespace = path.serverNamespace
        let (server, port) = try target(path, in: namespace, host: "127.0.0.1", [])
        defer { server.kill() }
        XCTAssertEqual(try multipathListeners(path, in: namespace), [])
        let before = try KernelCounters.mptcp(in: path, namespace: namespace)
        let tx = try CLIHarness.probe(in: path, namespace: namespace,
                                      ["--mptcp", "http://127.0.0.1:\(port)/bytes/\(Self.size)"])
        let after = try KernelCounters.mptcp(in: path, namespace: namespace)
        XCTAssertEqual(try after.value("MPCapableSYNRX"), try before.value("MPCapableSYNRX"))
        XCTAssertEqual(try after.value("MPCapableFallbackSYNACK") - before.value("MPCapableFallbackSYNACK"), 1)
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        let mptcp = try XCTUnwrap(tx["mptcp"] as? [String: Any], "no mptcp member: \(tx)")
        XCTAssertEqual(mptcp["negotiated"] as? Bool, false)
        XCTAssertEqual((mptcp["subflows"] as? [Any])?.count, 0)
    }

    /// `target --mptcp` where the kernel refuses MPTCP sockets (`net.mptcp.enabled=0` in the server's namespace):
    /// it listens with plain TCP (the kernel lists no MPTCP listener), says so in one stderr line, and a client's
    /// `probe --mptcp` from the other namespace falls back (its kernel counts the SYN/ACK without MP_CAPABLE).
    func testTargetWithMPTCPWhereTheKernelRefusesItListensWithTCP() throws {
        let path = try NetworkPath.up()
        defer { path.down() }
        let off = try path.run(in: path.serverNamespace, "/usr/sbin/sysctl", ["-qw", "net.mptcp.enabled=0"], timeout: 10)
        XCTAssertEqual(off.status, 0, off.stderr)
        let (server, port) = try target(path, in: path.serverNamespace, host: path.serverIP, ["--mptcp"])
        defer { server.kill() }
        XCTAssertNotNil(server.waitForText(after: "refuses Multipath TCP sockets", seconds: 5), server.stderr)
        XCTAssertEqual(server.stderr.split(separator: "\n").count, 1, server.stderr)
        XCTAssertEqual(try multipathListeners(path, in: path.serverNamespace), [])
        let before = try KernelCounters.mptcp(in: path, namespace: path.clientNamespace)
        let tx = try CLIHarness.probe(in: path, ["--mptcp", "http://\(path.serverIP):\(port)/bytes/\(Self.size)"])
        let after = try KernelCounters.mptcp(in: path, namespace: path.clientNamespace)
        XCTAssertEqual(try after.value("MPCapableFallbackSYNACK") - before.value("MPCapableFallbackSYNACK"), 1)
        XCTAssertEqual(tx["responseBodyBytes"] as? Int, Self.size)
        XCTAssertEqual((tx["mptcp"] as? [String: Any])?["negotiated"] as? Bool, false)
    }
}
