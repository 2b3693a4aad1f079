import XCTest
import WirelensCore

final class DurationTextTests: XCTestCase {
    func testParse() {
        let cases: [(String, Int64)] = [
            ("500ms", 500_000),
            ("15s", 15_000_000),
            ("1.5s", 1_500_000),
            ("2m", 120_000_000),
            ("2min", 120_000_000),
            ("1h", 3_600_000_000),
            ("250us", 250),
            ("250µs", 250),
            ("3", 3_000_000),
            ("0", 0),
            ("0.25", 250_000),
            ("1.5ms", 1_500),
            ("15S", 15_000_000),
            (" 500ms ", 500_000),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(DurationText.parseMicroseconds(text), expected, "\"\(text)\"")
        }
    }

    func testParseRejectsBadInput() {
        for text in ["abc", "-1s", "5 parsecs", "", "s", "ms", "1.2.3s", "10d", "5sec", "1e3s", "inf", "nan"] {
            XCTAssertNil(DurationText.parseMicroseconds(text), "\"\(text)\" should not parse")
        }
    }

    func testFormat() {
        XCTAssertEqual(DurationText.format(micros: 0), "0µs")
        XCTAssertEqual(DurationText.format(micros: 850), "850µs")
        XCTAssertEqual(DurationText.format(micros: 999), "999µs")
        XCTAssertEqual(DurationText.format(micros: 1_000), "1.0ms")
        XCTAssertEqual(DurationText.format(micros: 12_300), "12.3ms")
        XCTAssertEqual(DurationText.format(micros: 150_000), "150ms")
        XCTAssertEqual(DurationText.format(micros: 1_000_000), "1.00s")
        XCTAssertEqual(DurationText.format(micros: 4_200_000), "4.20s")
        XCTAssertEqual(DurationText.format(micros: 90_000_000), "90.00s")
    }
}
