import XCTest
import WirelensCore

final class WallClockTests: XCTestCase {
    func testKnownInstants() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000000Z"),
            (1, "1970-01-01T00:00:00.000001Z"),
            (951_782_400_123_456, "2000-02-29T00:00:00.123456Z"),
            (1_700_000_000_000_000, "2023-11-14T22:13:20.000000Z"),
            (1_709_164_800_000_000, "2024-02-29T00:00:00.000000Z"),
            (4_107_542_400_000_000, "2100-03-01T00:00:00.000000Z"),
            (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
            (-62_135_596_800_000_000, "0001-01-01T00:00:00.000000Z"),
        ]
        for (micros, text) in cases {
            XCTAssertEqual(WallClock.iso8601(micros: micros), text, "\(micros)")
            XCTAssertEqual(WallClock.parseISO8601(text), micros, text)
        }
    }

    func testNegativeInstantsBeforeTheEpoch() {
        XCTAssertEqual(WallClock.iso8601(micros: -1), "1969-12-31T23:59:59.999999Z")
        XCTAssertEqual(WallClock.iso8601(micros: -1_000_000), "1969-12-31T23:59:59.000000Z")
        XCTAssertEqual(WallClock.iso8601(micros: -86_401_000_000), "1969-12-30T23:59:59.000000Z")
        XCTAssertEqual(WallClock.iso8601(micros: -1_000_000_000_000_000), "1938-04-24T22:13:20.000000Z")
        XCTAssertEqual(WallClock.iso8601(micros: -1_000_000_000_000_001), "1938-04-24T22:13:19.999999Z")
        XCTAssertEqual(WallClock.parseISO8601("1969-12-31T23:59:59.999999Z"), -1)
    }

    func testRoundTripAcrossManyValues() {
        // A deterministic spread over years 1 to 9999, including negative values and every month and leap day.
        let low: Int64 = -62_135_596_800_000_000
        let high: Int64 = 253_402_300_799_999_999
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Int64] = [low, high, 0, -1, 1, 86_399_999_999, 86_400_000_000]
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(low + Int64(state % UInt64(high - low)))
        }
        // Every day of 1999-2001 (a non-leap year, the leap year 2000 and its neighbours), at 12:34:56.789012.
        for day in Int64(10_592)..<Int64(11_688) {
            values.append(day * 86_400_000_000 + 45_296_789_012)
        }
        var previous: String?
        for micros in values.sorted() {
            let text = WallClock.iso8601(micros: micros)
            XCTAssertEqual(text.utf8.count, 27, text)
            XCTAssertEqual(WallClock.parseISO8601(text), micros, text)
            if let previous { XCTAssertLessThanOrEqual(previous, text, "text order follows time order") }
            previous = text
        }
    }

    func testParseRejectsMalformedText() {
        for text in ["", "2000-02-29T00:00:00Z", "2000-02-29 00:00:00.000000Z", "2000-02-29T00:00:00.000000+00:00",
                     "2000-02-29T00:00:00.00000aZ", "20x0-02-29T00:00:00.000000Z", "2000-02-29T00:00:00.000000"] {
            XCTAssertNil(WallClock.parseISO8601(text), "\"\(text)\"")
        }
    }
}
