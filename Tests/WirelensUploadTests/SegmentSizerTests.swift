import WirelensCore
import WirelensUpload
import XCTest

/// Segment sizing on synthetic throughput: fixed, auto from the first measurement, clamping, re-estimation.
final class SegmentSizerTests: XCTestCase {
    func testFixedNeverChanges() {
        var sizer = SegmentSizer(mode: .fixed(512 << 10))
        XCTAssertFalse(sizer.awaitsMeasurement)
        sizer.observe(length: 512 << 10, micros: 10_000)
        XCTAssertEqual(sizer.nextSize, 512 << 10)
    }

    func testAutoSizesForTheTargetDurationFromTheFirstSegment() {
        var sizer = SegmentSizer(mode: .auto, initial: 1 << 20, targetMicros: 3_000_000)
        XCTAssertTrue(sizer.awaitsMeasurement)
        XCTAssertEqual(sizer.nextSize, 1 << 20, "the first segment has the initial size")
        // 1 MiB in 0.5 s = 2 MiB/s: 3 s worth is 6 MiB.
        sizer.observe(length: 1 << 20, micros: 500_000)
        XCTAssertFalse(sizer.awaitsMeasurement)
        XCTAssertEqual(sizer.nextSize, 6 << 20)
        XCTAssertEqual(sizer.nextSize % SegmentSizer.granule, 0)
    }

    func testAutoClampsToItsBounds() {
        var slow = SegmentSizer(mode: .auto)
        slow.observe(length: 1 << 20, micros: 100_000_000)   // ~10 KB/s
        XCTAssertEqual(slow.nextSize, 256 << 10)
        var fast = SegmentSizer(mode: .auto)
        fast.observe(length: 1 << 20, micros: 1_000)          // ~1 GB/s
        XCTAssertEqual(fast.nextSize, 64 << 20)
    }

    func testAutoFollowsALinkThatSlowsDown() {
        var sizer = SegmentSizer(mode: .auto, targetMicros: 2_000_000)
        sizer.observe(length: 4 << 20, micros: 1_000_000)     // 4 MiB/s
        let before = sizer.nextSize
        for _ in 0..<6 { sizer.observe(length: 1 << 20, micros: 1_000_000) }  // 1 MiB/s
        let after = sizer.nextSize
        XCTAssertLessThan(after, before)
        XCTAssertEqual(Double(after), 2.0 * 1_048_576, accuracy: 0.1 * 1_048_576, "converges on 2 s at 1 MiB/s")
    }
}
