import WirelensCore
import XCTest
@testable import wirelens

/// The progress line's text: plain lines for logs, a bar that fits the terminal, rates over a window.
final class ProgressLineTests: XCTestCase {
    private let sample = ProgressSnapshot(elapsedMicros: 12_000_000, bytes: 3 << 20, totalBytes: 8 << 20,
                                          bytesPerSecond: 1_000_000, segments: .init(done: 6, inFlight: 4, failed: 1))

    func testPlainLineHasBytesRateEtaAndSegments() {
        let line = ProgressLine.plain(sample)
        XCTAssertEqual(line, "progress 12.00s 3.00 MiB/8.00 MiB (37%) 1.00 MB/s ETA 6s segments 6 done, 4 in flight, 1 failed")
    }

    func testBarFitsTheWidthAndShowsTheFraction() {
        for width in [40, 80, 132] {
            let line = ProgressLine.bar(sample, width: width)
            XCTAssertLessThan(line.count, width, "width \(width): \(line)")
            XCTAssertTrue(line.contains("37%"), line)
            XCTAssertFalse(line.contains("\n"))
        }
        let wide = ProgressLine.bar(sample, width: 132)
        XCTAssertTrue(wide.hasPrefix("["), wide)
        XCTAssertTrue(wide.contains("seg 6 done +4 !1"), wide)
    }

    func testUnknownTotalHasNoEtaOrPercent() {
        let p = ProgressSnapshot(elapsedMicros: 2_000_000, bytes: 1500, bytesPerSecond: 750)
        XCTAssertNil(p.etaSeconds)
        XCTAssertEqual(ProgressLine.plain(p), "progress 2.00s 1.46 KiB 750 B/s")
        XCTAssertFalse(ProgressLine.bar(p, width: 80).contains("%"))
    }

    func testDurations() {
        XCTAssertEqual(ProgressLine.duration(6.2), "7s")
        XCTAssertEqual(ProgressLine.duration(185), "3m05s")
        XCTAssertEqual(ProgressLine.duration(7440), "2h04m")
    }

    func testRateOverTheWindow() {
        var rate = ProgressRate(windowMicros: 2_000_000)
        XCTAssertNil(rate.add(time: 0, bytes: 0))
        XCTAssertNil(rate.add(time: 100_000, bytes: 100), "too early for a rate")
        XCTAssertEqual(rate.add(time: 1_000_000, bytes: 1000) ?? 0, 1000, accuracy: 0.01)
        _ = rate.add(time: 2_000_000, bytes: 2000)
        _ = rate.add(time: 3_000_000, bytes: 5000)
        // The window keeps samples from ~1 s on: (5000 - 1000) / 2 s.
        XCTAssertEqual(rate.add(time: 3_000_001, bytes: 5000) ?? 0, 2000, accuracy: 1)
    }
}
