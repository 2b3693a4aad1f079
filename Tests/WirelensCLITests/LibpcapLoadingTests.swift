import Foundation
import WirelensTestSupport
import XCTest

/// libpcap is loaded only by what reads or takes a capture, as the dynamic loader's own log (`LD_DEBUG=files`, one
/// `file=` line for each library it loads, at start or by dlopen) and the binary's dynamic section (readelf) say.
final class LibpcapLoadingTests: XCTestCase {
    /// The libraries the dynamic loader reports loading while `wirelens arguments` runs.
    private func librariesLoaded(_ arguments: [String]) throws -> (status: Int32, libraries: [String]) {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["LD_DEBUG=files", WirelensCLI.path] + arguments, timeout: 60)
        let libraries = outcome.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return line[range.upperBound...].split(separator: " ").first.map(String.init)
        }
        return (outcome.status, libraries)
    }

    func testTheBinaryDoesNotNeedLibpcap() throws {
        let readelf = try ProcessRunner.run("/usr/bin/readelf", ["-d", WirelensCLI.path])
        XCTAssertEqual(readelf.status, 0, readelf.stderr)
        let needed = readelf.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertTrue(needed.contains { $0.contains("libcurl") }, "readelf lists the NEEDED libraries: \(needed)")
        XCTAssertFalse(needed.contains { $0.contains("libpcap") }, "\(needed)")
    }

    /// A probe (refused on a closed loopback port: the engine, the report, no capture) loads neither libpcap nor
    /// the libraries only it needs; libcurl it does load.
    func testAProbeDoesNotLoadLibpcap() throws {
        let run = try librariesLoaded(["probe", "-s", "http://127.0.0.1:1/"])
        XCTAssertEqual(run.status, 6, "connection refused")
        XCTAssertTrue(run.libraries.contains { $0.hasPrefix("libcurl.so") }, "the loader's log lists libraries: \(run.libraries)")
        XCTAssertFalse(run.libraries.contains { $0.hasPrefix("libpcap.so") }, "\(run.libraries)")
        XCTAssertFalse(run.libraries.contains { $0.hasPrefix("libdbus") }, "\(run.libraries)")
    }

    /// Reading a capture loads libpcap (and the analysis works through it): an Ethernet pcap with no packets.
    func testCaptureAnalyzeLoadsLibpcap() throws {
        let path = WirelensCLI.temporaryPath("empty.pcap")
        defer { unlink(path) }
        // The classic file header: magic, version 2.4, zone 0, sigfigs 0, snaplen 262144, link type 1 (Ethernet).
        var header = Data()
        for word: UInt32 in [0xA1B2_C3D4] { withUnsafeBytes(of: word.littleEndian) { header.append(contentsOf: $0) } }
        for half: UInt16 in [2, 4] { withUnsafeBytes(of: half.littleEndian) { header.append(contentsOf: $0) } }
        for word: UInt32 in [0, 0, 262_144, 1] { withUnsafeBytes(of: word.littleEndian) { header.append(contentsOf: $0) } }
        try header.write(to: URL(fileURLWithPath: path))
        let run = try librariesLoaded(["capture", "analyze", path, "--format", "json", "-q"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.libraries.contains { $0.hasPrefix("libpcap.so") }, "\(run.libraries)")
    }
}
