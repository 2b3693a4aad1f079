import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--interface` (issue 31 item 5) as curl's: the address nginx logged (`$remote_addr`) for a request bound to
/// another loopback address, the same for curl with the same flag, and the report's local address; a name this
/// host lacks is refused before the run, and an address it lacks fails as curl's bind does.
final class InterfaceBindTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    private func curl(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "-o", "/dev/null"] + arguments, timeout: 30)
    }

    private func probe(_ arguments: [String]) throws -> (outcome: ProcessRunner.Outcome, transaction: [String: Any]) {
        let report = CLIHarness.temporaryPath("interface.json")
        paths.append(report)
        let outcome = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--format", "json", "--report", report]
                                         + arguments)
        return (outcome, try CLIHarness.firstTransaction(ofReport: report).transaction)
    }

    /// An address (bare or as `host!`) binds the socket to it: nginx saw the request come from there, as curl's.
    func testBindsToTheAddress() throws {
        let nginx = try OwnNginx([OwnNginx.Server(tls: false)])
        for (tag, value, address) in [("bare", "127.0.0.2", "127.0.0.2"), ("host", "host!127.0.0.3", "127.0.0.3"),
                                      ("device", "if!lo", "127.0.0.1")] {
            let byCurl = try curl(["--interface", value, nginx.url(0, "/small.txt?\(tag)-curl", tls: false)])
            XCTAssertEqual(byCurl.status, 0, "\(tag): \(byCurl.stderr)")
            let (outcome, tx) = try probe(["--interface", value, nginx.url(0, "/small.txt?\(tag)-wl", tls: false)])
            XCTAssertEqual(outcome.status, 0, "\(tag): \(outcome.stderr)")
            let theirs = nginx.logged("/small.txt?\(tag)-curl").map(\.remoteAddress)
            let ours = nginx.logged("/small.txt?\(tag)-wl").map(\.remoteAddress)
            XCTAssertEqual(theirs, [address], tag)
            XCTAssertEqual(ours, theirs, tag)
            XCTAssertEqual(tx["localAddress"] as? String, address, tag)
        }
    }

    /// An interface name this host lacks (as `ip link` tells) is one line naming it, exit 2, before any connection;
    /// curl finds out only when it binds (exit 45).
    func testMissingInterfaceIsAUsageError() throws {
        let nginx = try OwnNginx([OwnNginx.Server(tls: false)])
        let name = "wlnosuch\(getpid() % 1000)"
        let link = try ProcessRunner.run("/usr/sbin/ip", ["link", "show", name], timeout: 10)
        XCTAssertNotEqual(link.status, 0, "\(name) exists: \(link.stdout)")
        let url = nginx.url(0, "/small.txt?missing", tls: false)
        XCTAssertEqual(try curl(["--interface", name, url]).status, 45)
        for value in [name, "if!" + name] {
            try CLIHarness.assertFails(["probe", "--interface", value, url], code: .usage, mention: name)
        }
        try CLIHarness.assertFails(["probe", "--interface", "", url], code: .usage, mention: "--interface")
        try CLIHarness.assertFails(["probe", "--interface", "host!", url], code: .usage, mention: "--interface")
        XCTAssertEqual(nginx.logged("/small.txt?missing"), [])
    }

    /// An address that is not this host's fails when the socket is bound, as curl's: the report carries curl's exit
    /// code as its CURLcode (45, INTERFACE_FAILED), class connect, and the run exits 6.
    func testForeignAddressFailsAtBind() throws {
        let nginx = try OwnNginx([OwnNginx.Server(tls: false)])
        let url = nginx.url(0, "/small.txt?foreign", tls: false)
        // 192.0.2.0/24 is TEST-NET-1: no host has it.
        let byCurl = try curl(["--interface", "192.0.2.1", url])
        XCTAssertEqual(byCurl.status, 45, byCurl.stderr)
        let (outcome, tx) = try probe(["--interface", "192.0.2.1", url])
        XCTAssertEqual(outcome.status, ExitStatus.connect.rawValue, outcome.stderr)
        let error = try XCTUnwrap(tx["error"] as? [String: Any], "\(tx)")
        XCTAssertEqual(error["curlCode"] as? Int, Int(byCurl.status))
        XCTAssertEqual(error["class"] as? String, "connect")
        XCTAssertEqual(nginx.logged("/small.txt?foreign"), [])
    }
}
