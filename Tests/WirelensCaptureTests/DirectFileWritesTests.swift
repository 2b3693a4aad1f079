import Foundation
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// O_DIRECT writes of a report (`DirectFileWrites`): pieces of every size in, the same bytes in the file.
final class DirectFileWritesTests: XCTestCase {
    /// Pieces from 1 byte to over a step, crossing step and block boundaries, a last piece short of a block: the
    /// file read back holds exactly the bytes given, in order.
    func testPiecesOfEverySizeGiveTheSameFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-direct-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { unlink(path) }
        var expected: [UInt8] = []
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let sizes = [1, 4095, 4097, 3, DirectFileWrites.step - 1, 2, DirectFileWrites.step + 5000, 77, 262_144, 1]
            + (0..<40).map { _ in Int(next() % 300_000) }
        do {
            // Without O_DIRECT on this file system the test says nothing: skip rather than pass.
            guard let writes = DirectFileWrites(fd: fd) else { throw XCTSkip("no O_DIRECT here") }
            for size in sizes {
                let piece = (0..<size).map { _ in UInt8(truncatingIfNeeded: next()) }
                expected += piece
                XCTAssertTrue(piece.withUnsafeBytes { writes.write($0) })
            }
            XCTAssertTrue(writes.flush(whole: true))
        }
        XCTAssertEqual(close(fd), 0)
        XCTAssertNotEqual(expected.count % DirectFileWrites.block, 0)
        let read = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(read.count, expected.count)
        XCTAssertTrue(read.elementsEqual(expected), "the file holds the bytes given, in order")
    }
}
