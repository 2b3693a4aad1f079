import XCTest
import WirelensCore

final class ByteSizeTests: XCTestCase {
    func testParseUnits() {
        let cases: [(String, Int64)] = [
            ("0", 0),
            ("1048576", 1_048_576),
            ("10MiB", 10_485_760),
            ("512KB", 512_000),
            ("512KiB", 524_288),
            ("1.5GiB", 1_610_612_736),
            ("2GB", 2_000_000_000),
            ("3MB", 3_000_000),
            ("1TiB", 1_099_511_627_776),
            ("300B", 300),
            ("1.5KiB", 1_536),
            ("10mib", 10_485_760),
            (" 8 MiB ", 8_388_608),
            ("500k", 512_000),
            ("2m", 2_097_152),
            ("0.3KB", 300),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(ByteSize.parse(text), expected, "\"\(text)\"")
        }
    }

    /// Decimal fractions that make whole byte counts, although their binary products are not exact
    /// (4.1 * 1e6 is 4099999.9999999995 in Double arithmetic).
    func testParseDecimalFractionsThatAreWholeBytes() {
        let cases: [(String, Int64)] = [
            ("4.1MB", 4_100_000),
            ("8.2MB", 8_200_000),
            ("16.1KB", 16_100),
            ("32.7KB", 32_700),
            ("8.2GB", 8_200_000_000),
            ("16.9GB", 16_900_000_000),
            ("0.5KiB", 512),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(ByteSize.parse(text), expected, "\"\(text)\"")
        }
        XCTAssertNil(ByteSize.parse("4.1000001KB"), "4100.0001 bytes is not whole")
    }

    func testParseRejectsBadInput() {
        for text in ["-1", "10XB", "", "   ", "1.5", "1.5B", "0.0001KB", "abc", "MiB", "1e6", "1..5MiB", "10 MiB extra",
                     "10MiBs", "nan", "inf", "99999999TB"] {
            XCTAssertNil(ByteSize.parse(text), "\"\(text)\" should not parse")
        }
    }

    func testFormat() {
        XCTAssertEqual(ByteSize.format(0), "0 B")
        XCTAssertEqual(ByteSize.format(512), "512 B")
        XCTAssertEqual(ByteSize.format(1023), "1023 B")
        XCTAssertEqual(ByteSize.format(1024), "1.00 KiB")
        XCTAssertEqual(ByteSize.format(1_536), "1.50 KiB")
        XCTAssertEqual(ByteSize.format(10_485_760), "10.0 MiB")
        XCTAssertEqual(ByteSize.format(1_610_612_736), "1.50 GiB")
        XCTAssertEqual(ByteSize.format(524_288_000), "500.0 MiB")
        XCTAssertEqual(ByteSize.format(3 * 1_099_511_627_776), "3.00 TiB")
        XCTAssertEqual(ByteSize.format(5_000 * 1_099_511_627_776), "5000.0 TiB", "TiB is the largest unit")
    }

    func testFormatRateUsesDecimalUnits() {
        XCTAssertEqual(ByteSize.formatRate(0), "0.00 B/s")
        XCTAssertEqual(ByteSize.formatRate(999), "999 B/s")
        XCTAssertEqual(ByteSize.formatRate(715_000), "715 KB/s")
        XCTAssertEqual(ByteSize.formatRate(2_909_000), "2.91 MB/s")
        XCTAssertEqual(ByteSize.formatRate(12_345), "12.3 KB/s")
        XCTAssertEqual(ByteSize.formatRate(1_250_000_000), "1.25 GB/s")
    }

    func testFormatParseRoundTripForWholeBinaryUnits() {
        for (bytes, text) in [(Int64(1_024), "1.00 KiB"), (1_048_576 * 20, "20.0 MiB")] {
            XCTAssertEqual(ByteSize.format(bytes), text)
            XCTAssertEqual(ByteSize.parse(text.replacingOccurrences(of: " ", with: "")), bytes)
        }
    }

    func testParseRate() {
        XCTAssertEqual(ByteSize.parseRate("720KB/s"), 720_000)
        XCTAssertEqual(ByteSize.parseRate("1MiB/s"), 1_048_576)
        XCTAssertEqual(ByteSize.parseRate("2048"), 2048)
        XCTAssertEqual(ByteSize.parseRate("64KiB"), 65536)
        XCTAssertNil(ByteSize.parseRate("fast/s"))
        XCTAssertNil(ByteSize.parseRate("/s"))
    }

    /// The argument types of size and rate flags and keys: their values, and a refusal that quotes the text.
    func testArgumentTypes() throws {
        XCTAssertEqual(try ByteCount(parsing: "10MiB").bytes, 10 << 20)
        XCTAssertEqual(try ByteCount(parsing: "0").bytes, 0)
        XCTAssertThrowsError(try ByteCount(parsing: "10XB")) { error in
            XCTAssertTrue((error as? ValueRefusal)?.message.hasPrefix("'10XB' is not a size") == true, "\(error)")
        }
        XCTAssertEqual(try ByteRate(parsing: "720KB/s").bytesPerSecond, 720_000)
        XCTAssertEqual(try ByteRate(parsing: "1MiBps").bytesPerSecond, 1 << 20)
        XCTAssertEqual(try ByteRate(parsing: " 512KiB ").bytesPerSecond, 512 << 10)
        for bad in ["0", "0/s", "fast", "-1KB/s"] { XCTAssertThrowsError(try ByteRate(parsing: bad), bad) }
        let window = try SocketBufferSize(parsing: "64KiB")
        XCTAssertEqual(window.bytes, 65_536)
        XCTAssertTrue(window.hasUnit)
        XCTAssertFalse(try SocketBufferSize(parsing: "65536").hasUnit)
        for bad in ["1023", "65MiB", "1G", "x"] { XCTAssertThrowsError(try SocketBufferSize(parsing: bad), bad) }
        XCTAssertEqual(try SocketBufferSize(parsing: "1KiB").bytes, 1024)
        XCTAssertEqual(try SocketBufferSize(parsing: "64MiB").bytes, 64 << 20)
    }
}
