import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensReport

/// The hand-written JSON of `tcp` and `diagnosis` against the Codable bytes, over seeded random values that reach
/// every field present and absent.
final class KernelFactsJSONWriterTests: XCTestCase {
    func testSameBytesAsTheCodablePath() throws {
        var g = SplitMix64(seed: 42)
        let encoder = StreamingJSONEncoder(prettyPrinted: false)
        for _ in 0..<500 {
            let f = RandomReports.facts(&g)
            var ours: [UInt8] = []
            KernelFactsJSONWriter.append(f, samples: true, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: try encoder.encode(f), as: UTF8.self))
            // Without the samples (`standard`): the Codable bytes of the facts with none, which write no key.
            var lean = f
            lean.samples = []
            ours = []
            KernelFactsJSONWriter.append(f, samples: false, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: try encoder.encode(lean), as: UTF8.self))
            XCTAssertFalse(String(decoding: ours, as: UTF8.self).contains("\"samples\""))
            let d = RandomReports.diagnosis(&g)
            ours = []
            KernelFactsJSONWriter.append(d, to: &ours)
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: try encoder.encode(d), as: UTF8.self))
        }
    }
}
