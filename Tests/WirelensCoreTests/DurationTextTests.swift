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
            ("90d", 7_776_000_000_000),
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
        for text in ["abc", "-1s", "5 parsecs", "", "s", "ms", "1.2.3s", "10days", "5sec", "1e3s", "inf", "nan"] {
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

    /// The one rule of duration flags and config keys: positive, bare numbers are seconds, one-line refusals.
    func testPositiveDuration() throws {
        XCTAssertEqual(try PositiveDuration(parsing: "5").micros, 5_000_000)
        XCTAssertEqual(try PositiveDuration(parsing: "1").micros, 1_000_000)
        XCTAssertEqual(try PositiveDuration(parsing: "250ms").micros, 250_000)
        for text in ["0", "0s", "0.0", "-1", "-5ms", " -2s "] {
            XCTAssertThrowsError(try PositiveDuration(parsing: text), text) { error in
                XCTAssertEqual((error as? ValueRefusal)?.message, "'\(text)' must be greater than 0")
            }
        }
        for text in ["soon", "", "-", "--1", "5 parsecs"] {
            XCTAssertThrowsError(try PositiveDuration(parsing: text), text) { error in
                let message = (error as? ValueRefusal)?.message ?? ""
                XCTAssertTrue(message.hasPrefix("'\(text)' is not a duration"), message)
            }
        }
    }

    /// Windows as `--since` takes them.
    func testSpan() {
        XCTAssertEqual(DurationText.span(micros: 172_800_000_000), "48h")
        XCTAssertEqual(DurationText.span(micros: 5_400_000_000), "90m")
        XCTAssertEqual(DurationText.span(micros: 45_000_000), "45s")
        XCTAssertEqual(DurationText.span(micros: 1_500_000), "1.50s")
    }
}
