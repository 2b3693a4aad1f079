import XCTest
@testable import WirelensCapture
import WirelensTestSupport

/// The running peak against a count made from the intervals themselves (at each start, the intervals that began
/// at or before it and end after it), over fixed-seed runs noted the way the capture's tracker notes them: starts
/// in time order with a few late ones, ends noted up to a delay after they happen, folds behind a watermark.
final class ConcurrencyPeakTests: XCTestCase {
    func testThePeakIsTheMostIntervalsOpenAtOneInstant() {
        for seed in 0..<20 as Range<UInt64> {
            var random = SplitMix64(seed: 0xC0_C0A7 &+ seed)
            let count = 50 + Int(random.next() % 300)
            // Starts on a coarse grid (ties between starts and ends are common), lengths from 0 to 40 ticks.
            var intervals: [(start: Int64, end: Int64)] = []
            var time: Int64 = 1_000
            for _ in 0..<count {
                time += Int64(random.next() % 3)
                intervals.append((time, time + Int64(random.next() % 41)))
            }
            // An end is noted when the clock has passed it by up to `delay`; a start is noted late now and then.
            let delay: Int64 = 10
            var events: [(notedAt: Int64, start: Bool, time: Int64)] = []
            for interval in intervals {
                let late = random.next() % 10 == 0 ? Int64(random.next() % UInt64(delay)) : 0
                events.append((interval.start + late, true, interval.start))
                events.append((interval.end + Int64(random.next() % UInt64(delay)), false, interval.end))
            }
            events.sort { $0.notedAt < $1.notedAt }
            var peak = ConcurrencyPeak()
            for (i, event) in events.enumerated() {
                if event.start { peak.opened(at: event.time) } else { peak.closed(at: event.time) }
                // Nothing noted from here on happened before notedAt - delay.
                if i % 7 == 0 { peak.fold(before: event.notedAt - delay) }
            }
            let expected = intervals.map { at in
                intervals.filter { $0.start <= at.start && $0.end > at.start }.count
            }.max() ?? 0
            XCTAssertEqual(peak.peak, expected, "seed \(seed): \(count) intervals")
            XCTAssertLessThan(peak.heldEvents, events.count, "seed \(seed): folded events are dropped")
        }
    }

    /// An interval that ends as another begins does not overlap it; zero-length intervals count nowhere.
    func testAnEndAtAStartIsNotAnOverlap() {
        var peak = ConcurrencyPeak()
        peak.opened(at: 10)
        peak.closed(at: 20)
        peak.opened(at: 20)
        peak.closed(at: 30)
        peak.opened(at: 25)
        peak.closed(at: 25)
        XCTAssertEqual(peak.peak, 1)
        peak.fold(before: 100)
        XCTAssertEqual(peak.peak, 1)
        XCTAssertEqual(peak.heldEvents, 0)
    }
}
