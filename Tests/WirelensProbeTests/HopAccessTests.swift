import WirelensCore
import XCTest
@testable import WirelensProbe

/// `HopAccess.mayConnect` refuses a hop's link-local addresses before any socket is made. Oracle: the link-local
/// ranges, 169.254.0.0/16 (RFC 3927) and fe80::/10 (RFC 4291), written out as bytes here.
final class HopAccessTests: XCTestCase {
    private let metadata: [UInt8] = [169, 254, 169, 254]
    private let fe80: [UInt8] = [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]

    func testAHopThatRefusesLinkLocalIsRefusedThemAndTheFirstRefusalIsKept() {
        var access = HopAccess()
        access.refusesLinkLocal = true
        XCTAssertTrue(access.mayConnect(to: [10, 0, 0, 1][...], host: "b.example"))
        XCTAssertNil(access.refusal)
        XCTAssertFalse(access.mayConnect(to: metadata[...], host: "b.example"))
        let refusal = access.refusal ?? ""
        XCTAssertTrue(refusal.contains("b.example (169.254.169.254)"), refusal)
        XCTAssertFalse(access.mayConnect(to: fe80[...], host: "b.example"))
        XCTAssertEqual(access.refusal, refusal, "the first refusal is the transfer's error")
    }

    func testAnIPv6LinkLocalAddressIsRefusedToo() {
        var access = HopAccess()
        access.refusesLinkLocal = true
        XCTAssertFalse(access.mayConnect(to: fe80[...], host: "c.example"))
        XCTAssertTrue(access.refusal?.contains("c.example (fe80::1)") ?? false, access.refusal ?? "")
    }

    func testAHopThatMayConnectAnywhereIsNeverRefused() {
        var access = HopAccess()
        XCTAssertTrue(access.mayConnect(to: metadata[...], host: "a.example"))
        XCTAssertNil(access.refusal)
        XCTAssertTrue(access.keepsCredentials)
    }
}
