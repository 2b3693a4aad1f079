import WirelensCore
import XCTest
@testable import wirelens

/// The exit codes are distinct and each has its own one-line meaning (the CLI's help and the README table).
final class ExitStatusMeaningTests: XCTestCase {
    func testCodesAreDistinctAndDocumented() {
        let codes = ExitStatus.allCases.map(\.rawValue)
        XCTAssertEqual(Set(codes).count, codes.count)
        XCTAssertEqual(codes.filter { $0 == 0 }.count, 1)
        let meanings = ExitStatus.allCases.map(\.meaning)
        XCTAssertEqual(Set(meanings).count, meanings.count)
        XCTAssertFalse(meanings.contains(""))
        XCTAssertEqual(ExitStatus.usage.rawValue, 2)
        XCTAssertEqual(ExitStatus.dns.rawValue, 5)
        XCTAssertEqual(ExitStatus.connect.rawValue, 6)
        XCTAssertEqual(ExitStatus.tls.rawValue, 7)
        XCTAssertEqual(ExitStatus.timeout.rawValue, 8)
        XCTAssertEqual(ExitStatus.interrupted.rawValue, 130)
    }
}
