import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensReport

/// The hand-written JSON of `tcp` and `diagnosis`, read back by Foundation's decoder, over seeded random values that
/// reach every field present and absent.
final class KernelFactsJSONWriterTests: XCTestCase {
    func testSeededValuesReadBackAsWritten() throws {
        var g = SplitMix64(seed: 42)
        for i in 0..<500 {
            let f = RandomReports.facts(&g)
            var ours: [UInt8] = []
            KernelFactsJSONWriter.append(f, samples: true, to: &ours)
            XCTAssertEqual(try JSONDecoder().decode(TCPFacts.self, from: Data(ours)), f, "facts \(i)")
            // Without the samples (`standard`): the facts with none, and no key for them.
            var lean = f
            lean.samples = []
            ours = []
            KernelFactsJSONWriter.append(f, samples: false, to: &ours)
            XCTAssertEqual(try JSONDecoder().decode(TCPFacts.self, from: Data(ours)), lean, "standard facts \(i)")
            XCTAssertFalse(String(decoding: ours, as: UTF8.self).contains("\"samples\""))
            let d = RandomReports.diagnosis(&g)
            ours = []
            KernelFactsJSONWriter.append(d, to: &ours)
            XCTAssertEqual(try JSONDecoder().decode(Diagnosis.self, from: Data(ours)), d, "diagnosis \(i)")
        }
    }
}
