import WirelensCore
import XCTest

/// The presets' table: the names and the figures the issue gives.
final class UploadPresetTests: XCTestCase {
    func testPresetsCarryTheirClientsFigures() {
        XCTAssertEqual(UploadPreset.all.map(\.name), ["oss-ios", "aws-cli", "ios", "macos"])
        let oss = UploadPreset.named("OSS-iOS")
        XCTAssertEqual(oss?.parallel, 5)
        XCTAssertEqual(oss?.retries, 3)
        XCTAssertEqual(oss?.idleTimeout, 15_000_000)
        XCTAssertEqual(UploadPreset.named("aws-cli")?.segmentSize, 8 << 20)
        XCTAssertEqual(UploadPreset.named("aws-cli")?.parallel, 10)
        XCTAssertEqual(UploadPreset.named("ios")?.maxHostConnections, 4)
        XCTAssertEqual(UploadPreset.named("macos")?.maxHostConnections, 6)
        XCTAssertNil(UploadPreset.named("android"))
    }
}
