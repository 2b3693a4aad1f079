import Foundation
import WirelensCore
import XCTest

/// The link-local ranges against Python's ipaddress module, an independent classifier, over a spread of addresses.
final class LinkLocalAddressTests: XCTestCase {
    /// Addresses around the edges of 169.254.0.0/16, fe80::/10 and the IPv4-mapped form.
    static let samples = [
        "169.254.0.0", "169.254.169.254", "169.254.255.255", "169.253.255.255", "169.255.0.0", "0.0.0.0",
        "127.0.0.1", "10.0.0.1", "192.168.1.1", "255.255.255.255", "fe80::", "fe80::1", "febf:ffff::1", "fec0::1",
        "fe7f:ffff::", "::1", "::", "2001:db8::1", "::ffff:169.254.169.254", "::ffff:169.253.0.1",
        "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "fd00:ec2::254",
    ]

    func testRangesAgreeWithPythonsIpaddress() throws {
        let program = """
            import ipaddress, sys
            for line in sys.argv[1:]:
                a = ipaddress.ip_address(line)
                mapped = getattr(a, "ipv4_mapped", None)
                print(line, (mapped or a).is_link_local)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", program] + Self.samples
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let outcome = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, outcome)
        let expected = Dictionary(uniqueKeysWithValues: outcome.split(separator: "\n").map { line -> (String, Bool) in
            let parts = line.split(separator: " ")
            return (String(parts[0]), parts[1] == "True")
        })
        XCTAssertEqual(expected.count, Self.samples.count, outcome)
        for address in Self.samples {
            XCTAssertEqual(LinkLocalAddress.contains(literal: address), expected[address], address)
        }
    }

    func testBytesBracketsZonesAndNames() {
        XCTAssertEqual(LinkLocalAddress.bytes(ofLiteral: "169.254.169.254"), [169, 254, 169, 254])
        XCTAssertEqual(LinkLocalAddress.bytes(ofLiteral: "[fe80::1%eth0]")?.count, 16)
        XCTAssertTrue(LinkLocalAddress.contains(literal: "[fe80::1%25eth0]"))
        XCTAssertNil(LinkLocalAddress.bytes(ofLiteral: "metadata.google.internal"))
        XCTAssertNil(LinkLocalAddress.bytes(ofLiteral: "169.254.169.254."), "a name with a dot at its end, not a literal")
        XCTAssertFalse(LinkLocalAddress.contains([169, 254, 1]), "neither 4 nor 16 bytes")
        XCTAssertEqual(LinkLocalAddress.text(of: [169, 254, 169, 254]), "169.254.169.254")
        XCTAssertEqual(LinkLocalAddress.text(of: LinkLocalAddress.bytes(ofLiteral: "FE80::A") ?? []), "fe80::a")
        XCTAssertNil(LinkLocalAddress.text(of: [1, 2, 3]))
    }
}
