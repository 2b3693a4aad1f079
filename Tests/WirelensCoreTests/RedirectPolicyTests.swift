import XCTest
import WirelensCore

final class RedirectPolicyTests: XCTestCase {
    private struct Expected: Equatable {
        var method: String
        var keepsBody: Bool
    }

    /// The next hop as a comparable value (`Hop` has no public initializer).
    private func hop(_ status: Int, _ method: String, location: Bool = true) -> Expected? {
        RedirectPolicy.next(status: status, method: method, hasLocation: location)
            .map { Expected(method: $0.method, keepsBody: $0.keepsBody) }
    }

    func testMovedAndFoundTurnPostIntoGet() {
        for status in [301, 302] {
            XCTAssertEqual(hop(status, "POST"), Expected(method: "GET", keepsBody: false), "\(status)")
        }
    }

    func testMovedAndFoundKeepOtherMethods() {
        for status in [301, 302] {
            XCTAssertEqual(hop(status, "PUT"), Expected(method: "PUT", keepsBody: true), "\(status)")
            XCTAssertEqual(hop(status, "GET")?.method, "GET")
            XCTAssertEqual(hop(status, "DELETE")?.method, "DELETE")
            XCTAssertEqual(hop(status, "HEAD")?.method, "HEAD")
        }
    }

    func testSeeOtherTurnsEverythingButHeadIntoGet() {
        for method in ["POST", "PUT", "PATCH", "DELETE", "GET"] {
            XCTAssertEqual(hop(303, method), Expected(method: "GET", keepsBody: false), method)
        }
        XCTAssertEqual(hop(303, "HEAD"), Expected(method: "HEAD", keepsBody: false))
    }

    func testTemporaryAndPermanentRedirectKeepMethodAndBody() {
        for status in [307, 308] {
            for method in ["POST", "PUT", "GET", "PATCH"] {
                XCTAssertEqual(hop(status, method), Expected(method: method, keepsBody: true),
                               "\(status) \(method)")
            }
        }
    }

    func testNoHopWithoutRedirectStatusOrLocation() {
        XCTAssertNil(hop(200, "GET"))
        XCTAssertNil(hop(304, "GET"), "Not Modified is not a redirect")
        XCTAssertNil(hop(300, "GET"))
        XCTAssertNil(hop(404, "GET"))
        for status in [301, 302, 303, 307, 308] {
            XCTAssertNil(hop(status, "GET", location: false), "\(status) without Location")
        }
    }
}
