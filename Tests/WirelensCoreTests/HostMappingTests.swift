import WirelensCore
import XCTest

/// `--resolve` and `--connect-to` entries as curl writes them, and the mistakes refused before libcurl (which would
/// only warn in its verbose text) sees them.
final class HostMappingTests: XCTestCase {
    func testResolveEntries() {
        for good in ["a.test:443:127.0.0.1", "a.test:80:127.0.0.1,[::1]", "a.test:80:::1", "+a.test:8080:10.0.0.1",
                     "a.test:80:[2001:db8::1]", "a.test:80:::ffff:1.2.3.4"] {
            XCTAssertNil(HostMapping.resolveProblem(good), good)
        }
        XCTAssertEqual(HostMapping.resolveProblem("a.test:80"), "'a.test:80' is not HOST:PORT:ADDRESS; write e.g. example.com:443:127.0.0.1")
        XCTAssertEqual(HostMapping.resolveProblem("a.test:0:127.0.0.1"), "'a.test:0:127.0.0.1': the port must be a number from 1 to 65535")
        XCTAssertNotNil(HostMapping.resolveProblem("a.test:80:256.1.1.1"))
        XCTAssertNotNil(HostMapping.resolveProblem("a.test:80:example.com"))
        XCTAssertNotNil(HostMapping.resolveProblem("a.test:80:1::2::3"))
        XCTAssertNotNil(HostMapping.resolveProblem(":80:127.0.0.1"))
    }

    func testConnectToEntries() {
        for good in ["a.test:80:127.0.0.1:8080", "::127.0.0.1:", "a.test:443:[::1]:8443", "a.test::b.test:"] {
            XCTAssertNil(HostMapping.connectToProblem(good), good)
        }
        XCTAssertNotNil(HostMapping.connectToProblem("a.test:80:127.0.0.1"))
        XCTAssertEqual(HostMapping.connectToProblem("a.test:80:b.test:70000"), "'a.test:80:b.test:70000': the port '70000' must be a number from 1 to 65535")
    }
}
