import Foundation
import WirelensCheck
import WirelensCore
import WirelensTestSupport
import XCTest

/// The pure parts of checks at scale: the name hash (FNV-1a 64, against the published test vectors), shards, the
/// ticks of a schedule and its skips, histograms, vantage names, and the configuration's buckets and intervals.
final class CheckScaleTests: XCTestCase {
    /// FNV-1a 64 as published (Fowler, Noll, Vo: the test vectors of draft-eastlake-fnv).
    func testNameHashIsFNV1a64() {
        XCTAssertEqual(NameHash.fnv1a64(""), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(NameHash.fnv1a64("a"), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(NameHash.fnv1a64("foobar"), 0x8594_4171_f739_67e8)
    }

    func testShardsSplitEveryCheckExactlyOnce() throws {
        let names = (0..<1000).map { "check-\($0)" }
        var seen: [String: Int] = [:]
        for k in 1...3 {
            let shard = try XCTUnwrap(Shard(index: k, count: 3))
            let mine = names.filter(shard.contains)
            XCTAssertGreaterThan(mine.count, 250, "a fair share in shard \(k)/3")
            for name in mine { seen[name, default: 0] += 1 }
        }
        XCTAssertEqual(seen.count, names.count)
        XCTAssertTrue(seen.values.allSatisfy { $0 == 1 })
        XCTAssertTrue(try XCTUnwrap(Shard(index: 1, count: 1)).contains("anything"))
    }

    func testShardSpecs() {
        XCTAssertEqual(try Shard.parse("2/3").get(), Shard(index: 2, count: 3))
        for (text, words) in [("3/2", "from 1 to N (2)"), ("0/2", "numbered from 1"), ("x/y", "is not K/N"),
                              ("1/0", "N from 1"), ("1", "is not K/N"), ("1/2/3", "is not K/N"), ("-1/2", "is not K/N"),
                              (" 1/2", "is not K/N"), ("1/99999999999999999999", "is not K/N")] {
            guard case .failure(let refusal) = Shard.parse(text) else {
                XCTFail("\(text) was accepted")
                continue
            }
            XCTAssertTrue(refusal.description.hasPrefix("--shard '\(text)' "), refusal.description)
            XCTAssertTrue(refusal.description.contains(words), refusal.description)
        }
    }

    func testVantageNames() {
        for good in ["eu-west-1", "office.berlin", "dc1:rack4", "A_b", String(repeating: "v", count: 64)] {
            XCTAssertEqual(try? Vantage.check(good).get(), good)
        }
        for bad in ["", "eu west", "a\u{7}b", "tab\there", "new\nline", "quote\"", "back\\slash", "é", "x{y}",
                    String(repeating: "v", count: 65)] {
            guard case .failure(let refusal) = Vantage.check(bad) else {
                XCTFail("\(bad.debugDescription) was accepted")
                continue
            }
            XCTAssertFalse(refusal.description.contains("\n"), "one line: \(refusal.description)")
            XCTAssertFalse(refusal.description.unicodeScalars.contains { $0.properties.generalCategory == .control },
                           "no control character reaches the terminal: \(refusal.description.debugDescription)")
        }
    }

    func testTicksAreSpreadByNameAndSkipsCounted() {
        let schedule = Schedule(interval: 10_000_000)
        let offsets = (0..<2000).map { schedule.offset(name: "check-\($0)") }
        XCTAssertTrue(offsets.allSatisfy { (0..<10_000_000).contains($0) })
        XCTAssertEqual(offsets, (0..<2000).map { Schedule(interval: 10_000_000).offset(name: "check-\($0)") },
                       "the same names get the same places (a restart keeps the spacing)")
        // Spread: no tenth of the interval holds more than twice its share.
        var tenths = [Int](repeating: 0, count: 10)
        for offset in offsets { tenths[Int(offset / 1_000_000)] += 1 }
        XCTAssertTrue(tenths.allSatisfy { $0 < 400 }, "\(tenths)")

        XCTAssertEqual(schedule.tick(atOrAfter: 25_000_000, offset: 3_000_000), 33_000_000)
        XCTAssertEqual(schedule.tick(atOrAfter: 23_000_000, offset: 3_000_000), 23_000_000)
        XCTAssertEqual(schedule.tick(atOrAfter: 23_000_001, offset: 3_000_000), 33_000_000)
        XCTAssertEqual(schedule.tick(atOrAfter: 0, offset: 3_000_000), 3_000_000)
        XCTAssertEqual(schedule.tick(atOrAfter: 1_000_000, offset: 3_000_000), 3_000_000)
        XCTAssertEqual(schedule.skippedTicks(tick: 3_000_000, next: 13_000_000), 0, "a run within its interval")
        XCTAssertEqual(schedule.skippedTicks(tick: 3_000_000, next: 33_000_000), 2, "a run of 25 s missed two ticks")
    }

    func testHistogramCountsCumulatively() {
        var histogram = Histogram(bounds: [1_000, 10_000, 100_000])
        for micros: Int64 in [500, 1_000, 1_001, 50_000, 2_000_000] { histogram.observe(micros) }
        XCTAssertEqual(histogram.cumulative.map(\.le), ["0.001", "0.01", "0.1", "+Inf"])
        XCTAssertEqual(histogram.cumulative.map(\.count), [2, 3, 4, 5], "le is inclusive")
        XCTAssertEqual(histogram.sum, 2_052_501)
        XCTAssertEqual(Histogram.defaultBounds.first, 1_000)
        XCTAssertEqual(Histogram.defaultBounds.last, 60_000_000)
        XCTAssertEqual(Histogram(bounds: Histogram.defaultBounds).cumulative.map(\.le).suffix(3), ["30", "60", "+Inf"])
    }

    func testConfigBucketsAndIntervals() throws {
        let parsed = try CheckConfig.parse("""
            defaults: { buckets: [5ms, 50ms, 500ms] }
            checks:
              - name: a
                url: http://127.0.0.1/
              - name: b
                url: http://127.0.0.1/
                buckets: [1s, 2s]
                timeout: 90s
              - name: c
                url: http://127.0.0.1/
                timeout: 5s
                every: 5s
            """, file: "c.yaml", environment: [:]).checks
        XCTAssertEqual(parsed.map(\.buckets), [[5_000, 50_000, 500_000], [1_000_000, 2_000_000], [5_000, 50_000, 500_000]])
        XCTAssertEqual(parsed.map(\.interval), [60_000_000, 90_000_000, 5_000_000],
                       "without every: 60 s, or the timeout when it is longer")

        let cases: [(String, Int, String, String)] = [
            ("checks:\n  - name: a\n    url: http://h/\n    timeout: 20s\n    every: 10s\n", 5, "checks[0].every",
             "shorter than the check's timeout"),
            ("checks:\n  - name: a\n    url: http://h/\n    buckets: [1s, 500ms]\n", 4, "checks[0].buckets[1]", "larger than"),
            ("checks:\n  - name: a\n    url: http://h/\n    buckets: []\n", 4, "checks[0].buckets", "list of durations"),
            ("checks:\n  - name: a\n    url: http://h/\n    buckets: 1s\n", 4, "checks[0].buckets", "list of durations"),
            ("defaults:\n  buckets: [1ms, soon]\nchecks:\n  - name: a\n    url: http://h/\n", 2, "defaults.buckets[1]", "soon"),
        ]
        for (text, line, key, words) in cases {
            do {
                _ = try CheckConfig.parse(text, file: "c.yaml", environment: [:])
                XCTFail("parsed: \(text)")
            } catch {
                XCTAssertEqual(error.line, line, "\(text) → \(error)")
                XCTAssertEqual(error.key, key, "\(text) → \(error)")
                XCTAssertTrue(error.description.hasPrefix("c.yaml:\(line): \(key): "), error.description)
                XCTAssertTrue(error.description.contains(words), error.description)
            }
        }
    }
}
