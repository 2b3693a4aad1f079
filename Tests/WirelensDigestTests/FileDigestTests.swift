import Foundation
import WirelensDigest
import XCTest

/// SHA-256 and MD5 of files and of ranges of them, against coreutils' sha256sum and md5sum of the same bytes (`dd`
/// cuts the ranges), and a file that cannot be read as a typed error naming it.
final class FileDigestTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "wirelens-digest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a shell pipeline and returns the first word of its output (the digest coreutils prints).
    private func coreutils(_ pipeline: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", pipeline]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, pipeline)
        return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    func testWholeFilesAndRangesMatchCoreutils() throws {
        let path = directory + "/body"
        // 3 MiB and 5 bytes: more than one read buffer, and not a multiple of a block.
        var bytes = [UInt8](repeating: 0, count: 3 << 20 + 5)
        var state: UInt32 = 7
        for index in bytes.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        XCTAssertEqual(try SHA256Digest.hex(ofFile: path), try coreutils("sha256sum '\(path)'"))
        XCTAssertEqual(MD5Digest.hex(try MD5Digest.bytes(ofFile: path)), try coreutils("md5sum '\(path)'"))
        // A range that starts and ends inside the file, in 1 KiB blocks for dd.
        let offset: Int64 = 1024 * 1000, length: Int64 = 1024 * 1500
        let cut = "dd if='\(path)' bs=1024 skip=\(offset / 1024) count=\(length / 1024) status=none"
        XCTAssertEqual(try SHA256Digest.hex(ofFile: path, offset: offset, length: length),
                       try coreutils("\(cut) | sha256sum"))
        XCTAssertEqual(MD5Digest.hex(try MD5Digest.bytes(ofFile: path, offset: offset, length: length)),
                       try coreutils("\(cut) | md5sum"))
        // Bytes fed in pieces give the digest of the whole.
        let digest = SHA256Digest()
        for start in stride(from: 0, to: bytes.count, by: 100_003) {
            digest.update(bytes[start..<min(start + 100_003, bytes.count)])
        }
        XCTAssertEqual(digest.finalize(), try coreutils("sha256sum '\(path)'"))
        XCTAssertEqual(SHA256Digest.hex(of: [UInt8]()), try coreutils("printf '' | sha256sum"))
    }

    func testAFileThatCannotBeReadIsAnErrorNamingIt() {
        let missing = directory + "/missing"
        XCTAssertThrowsError(try SHA256Digest.hex(ofFile: missing)) { error in
            XCTAssertTrue("\(error)".contains(missing), "\(error)")
        }
        XCTAssertThrowsError(try MD5Digest.bytes(ofFile: missing)) { error in
            XCTAssertTrue("\(error)".contains(missing), "\(error)")
        }
    }
}
