import Foundation
import Synchronization
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
@testable import WirelensCapture
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens capture analyze` end to end: reports in both formats, and one clear line for bad input.
final class CaptureCommandTests: XCTestCase {
    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    /// The built executable, next to the test bundle.
    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wirelens").path
    }

    private func wirelens(_ arguments: [String]) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(binary, arguments, timeout: 60)
    }

    private func file(_ name: String, _ bytes: [UInt8]) -> String {
        let path = LoopbackCapture.temporaryPath(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        toRemove.append(path)
        return path
    }

    /// A classic pcap file header (microsecond magic, little-endian) with the given link type.
    private func pcapHeader(linkType: UInt32) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
        return le32(0xa1b2_c3d4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(linkType)
    }

    /// A capture of two requests on loopback.
    private func smallCapture() throws -> String {
        let servers = try TestServers.get()
        let path = try LoopbackCapture.record(filter: "tcp port \(servers.httpPort)") {
            try LoopbackCapture.curl([servers.http("/small.txt"), "-o", "/dev/null", servers.http("/bytes/1k.bin"),
                                      "-o", "/dev/null"])
        }
        toRemove.append(path)
        return path
    }

    private func assertFails(_ arguments: [String], code: ExitStatus, mention: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        try WirelensCLI.assertFails(arguments, code: code, mention: mention, file: file, line: line)
    }

    func testBadInputGivesOneLineAndADocumentedCode() throws {
        var random = SystemRandomNumberGenerator()
        let noise = file("noise.pcap", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
        try assertFails(["capture", "analyze", noise], code: .localFile, mention: noise)
        let wrongMagic = file("magic.pcap", [0xde, 0xad, 0xbe, 0xef] + pcapHeader(linkType: 1).dropFirst(4))
        try assertFails(["capture", "analyze", wrongMagic], code: .localFile, mention: "cannot read capture")
        let empty = file("empty.pcap", [])
        try assertFails(["capture", "analyze", empty], code: .localFile, mention: empty)
        try assertFails(["capture", "analyze", "/nonexistent/x.pcap"], code: .localFile, mention: "/nonexistent/x.pcap")
        let usb = file("usb.pcap", pcapHeader(linkType: 189))
        try assertFails(["capture", "analyze", usb], code: .localFile, mention: "link type")

        let good = try smallCapture()
        try assertFails(["capture", "analyze", good, "--filter", "tcp port banana"], code: .usage, mention: "banana")
        try assertFails(["capture", "analyze", good, "--format", "xml"], code: .usage, mention: "xml")
    }

    func testACutFileStillReportsThePacketsBeforeTheCut() throws {
        let good = try smallCapture()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good)))
        let cut = file("cut.pcap", Array(bytes.prefix(bytes.count - 30)))
        let outcome = try wirelens(["capture", "analyze", cut, "--format", "json"])
        XCTAssertEqual(outcome.status, ExitStatus.localFile.rawValue)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("damaged after"), outcome.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertNotNil(json["readError"] as? String)
        let packets = try XCTUnwrap(json["packets"] as? [String: Any])
        let full = try wirelens(["capture", "analyze", good, "--format", "json"])
        let fullJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(full.stdout.utf8)) as? [String: Any])
        let fullPackets = try XCTUnwrap(fullJSON["packets"] as? [String: Any])
        XCTAssertEqual(packets["total"] as? Int, (fullPackets["total"] as? Int).map { $0 - 1 })
    }

    func testJSONReportFollowsTheSchemaAndTextNamesTheExchanges() throws {
        let good = try smallCapture()
        let reportPath = LoopbackCapture.temporaryPath("report.json")
        toRemove.append(reportPath)
        let outcome = try wirelens(["capture", "analyze", good, "--format", "json", "--report", reportPath])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath)))
            as? [String: Any])
        XCTAssertEqual(json["schema"] as? String, "wirelens.capture/1")
        let schema = TestServers.repositoryRoot.appendingPathComponent("docs/capture.schema.json").path
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import json, sys, jsonschema
            jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
            """, reportPath, schema], timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.count, 1)
        let exchanges = try XCTUnwrap(connections.first?["exchanges"] as? [[String: Any]])
        XCTAssertEqual(exchanges.compactMap { $0["target"] as? String }, ["/small.txt", "/bytes/1k.bin"])
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        XCTAssertEqual(summary["exchanges"] as? Int, 2)

        let text = try wirelens(["capture", "analyze", good])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("GET /small.txt → 200"), text.stdout)
        XCTAssertTrue(text.stdout.contains("1 (1 with handshake)"), text.stdout)
        XCTAssertFalse(text.stdout.contains("\u{1b}["), "no colour when stdout is not a terminal")
    }

    /// `--report` naming a pipe writes into it and leaves it a pipe (renaming a temporary file over it, as for
    /// regular files, would replace it; with /dev/null, the device).
    func testAReportToAPipeIsWrittenIntoIt() throws {
        let good = try smallCapture()
        let fifo = LoopbackCapture.temporaryPath("report.fifo")
        let copy = LoopbackCapture.temporaryPath("report-copy.json")
        toRemove += [fifo, copy]
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "exec cat \"$0\" > \"$1\"", fifo, copy]
        try reader.run()
        let outcome = try wirelens(["capture", "analyze", good, "--format", "json", "--report", fifo, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        var status = stat()
        XCTAssertEqual(stat(fifo, &status), 0)
        guard status.st_mode & S_IFMT == S_IFIFO else {
            reader.terminate()  // it would wait for a writer forever
            return XCTFail("the pipe was replaced by a regular file")
        }
        reader.waitUntilExit()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: copy)))
            as? [String: Any])
        XCTAssertEqual((json["summary"] as? [String: Any])?["exchanges"] as? Int, 2)
    }

    /// A capture of `count` connections: a SYN each from its own port (20000 and up).
    private func manySYNs(_ count: Int = 1001) -> String {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xff) } }
        var bytes = pcapHeader(linkType: 1)
        var builder = FrameBuilder()
        for i in 0..<count {
            builder.source.port = UInt16(20000 + i)
            let frame = builder.frame(seq: UInt32(i), flags: .syn)
            bytes += le32(1_700_000_000) + le32(UInt32(i)) + le32(UInt32(frame.count)) + le32(UInt32(frame.count)) + frame
        }
        return file("many.pcap", bytes)
    }

    func testManyConnectionsGiveACompactDocumentWrittenPieceByPiece() throws {
        // 1001 connections are above the pretty-printing limit.
        let path = manySYNs()
        let outcome = try wirelens(["capture", "analyze", path, "--format", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout.split(separator: "\n").count, 1, "compact: one line")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.count, 1001)
        XCTAssertEqual(connections.last?["index"] as? Int, 1000)
        XCTAssertEqual((json["summary"] as? [String: Any])?["connections"] as? Int, 1001)
    }

    /// A report that cannot be written is one line and exit 3, and the analysis is not run again to stdout: a path
    /// no file can be created at (procfs takes none, even from root) fails before the analysis, /dev/full (ENOSPC
    /// on every write) while the report is written, in both formats.
    func testAReportThatCannotBeWrittenIsOneLineAndExit3() throws {
        let path = manySYNs(2000)
        for report in ["/proc/wirelens-report.json", "/dev/full"] {
            for format in ["json", "text"] {
                let outcome = try wirelens(["capture", "analyze", path, "--format", format, "--report", report])
                let context = "\(report) \(format): \(outcome.stderr)"
                XCTAssertEqual(outcome.status, ExitStatus.localFile.rawValue, context)
                XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, context)
                XCTAssertTrue(outcome.stderr.contains("'\(report)'"), context)
                XCTAssertEqual(outcome.stdout, "", "nothing is written instead: \(context)")
            }
        }
    }

    /// A report that replaces an existing, longer file: the file then holds the whole new document, and only it.
    func testAReportReplacingAFileIsWhollyWritten() throws {
        let path = manySYNs(20_000)
        let report = LoopbackCapture.temporaryPath("replaced.json")
        toRemove.append(report)
        try Data(String(repeating: "an older report\n", count: 200_000).utf8).write(to: URL(fileURLWithPath: report))
        let outcome = try wirelens(["capture", "analyze", path, "--format", "json", "--report", report, "-q"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let written = try Data(contentsOf: URL(fileURLWithPath: report))
        XCTAssertGreaterThan(written.count, 1 << 20)
        XCTAssertFalse(String(decoding: written, as: UTF8.self).contains("older"))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: written) as? [String: Any])
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.map { $0["index"] as? Int }, Array(0..<20_000))
        XCTAssertEqual(connections.map { ($0["client"] as? [String: Any])?["port"] as? Int }, Array(20000..<40000))
        let directory = (report as NSString).deletingLastPathComponent
        let beside = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix((report as NSString).lastPathComponent + ".tmp") }
        XCTAssertEqual(beside, [], "no temporary file left")
    }

    /// SIGTERM or SIGINT during an analysis: the report covers what was read (every connection already written
    /// included), is marked interrupted, the exit code is 130, and no temporary file is left beside it.
    func testASignalWritesTheAnalysisSoFarMarkedInterrupted() throws {
        for (signal, format) in [(SIGTERM, "json"), (SIGINT, "text")] {
            let run = try analyzeFedPipe(format: format, signal: signal)
            XCTAssertFalse(run.outcome.signaled, "killed by the signal instead of trapping it")
            XCTAssertEqual(run.outcome.status, signal == SIGTERM ? ExitStatus.terminated.rawValue : ExitStatus.interrupted.rawValue,
                           run.outcome.stderr)
            XCTAssertTrue(run.outcome.stderr.contains("interrupted"), run.outcome.stderr)
            XCTAssertEqual(run.leftBeside, ["report"], "only the report is left in its directory")
            let written = try String(contentsOfFile: run.report, encoding: .utf8)
            if format == "text" {
                XCTAssertTrue(written.contains("Interrupted"), written)
                XCTAssertTrue(written.contains("GET /small.txt?n=0 → 200"), written)
                continue
            }
            let schema = TestServers.repositoryRoot.appendingPathComponent("docs/capture.schema.json").path
            let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
                import json, sys, jsonschema
                jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
                """, run.report, schema], timeout: 60)
            XCTAssertEqual(check.status, 0, check.stderr)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
            XCTAssertEqual(json["interrupted"] as? Bool, true)
            XCTAssertTrue((json["caveats"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "interrupted" })
            let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
            let indices = Set(connections.compactMap { $0["index"] as? Int })
            // Every connection begun is reported once: those written before the signal, the rest after it.
            XCTAssertEqual(indices, Set(0..<connections.count))
            XCTAssertTrue(run.writtenBefore.isSubset(of: indices), "connections written before the signal are kept")
            XCTAssertGreaterThan(run.writtenBefore.count, 0)
            XCTAssertLessThanOrEqual(connections.count, run.generated)
            // Each connection carries its own GET (but those the signal cut before their request).
            for connection in connections {
                guard let index = connection["index"] as? Int,
                      let exchanges = connection["exchanges"] as? [[String: Any]], !exchanges.isEmpty else { continue }
                XCTAssertEqual(exchanges.compactMap { $0["target"] as? String }, ["/small.txt?n=\(index)"])
            }
            let withExchanges = connections.filter { !(($0["exchanges"] as? [[String: Any]]) ?? []).isEmpty }
            XCTAssertGreaterThanOrEqual(withExchanges.count, connections.count - 2)
            XCTAssertEqual((json["summary"] as? [String: Any])?["connections"] as? Int, connections.count)
        }
    }

    /// A signal while the pipe's writer sends nothing (it keeps the pipe open): the reading thread, waiting for
    /// input, still stops, and every connection written is in the report.
    func testASignalStopsTheAnalysisOfAPipeWhoseWriterWaits() throws {
        let run = try analyzeFedPipe(format: "json", signal: SIGTERM, stallAfter: 500)
        XCTAssertFalse(run.outcome.signaled, "killed: the stop was not noticed while the pipe was quiet")
        XCTAssertEqual(run.outcome.status, ExitStatus.terminated.rawValue, run.outcome.stderr)
        XCTAssertEqual(run.leftBeside, ["report"], "only the report is left in its directory")
        XCTAssertEqual(run.generated, 500)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.report)))
            as? [String: Any])
        XCTAssertEqual(json["interrupted"] as? Bool, true)
        XCTAssertEqual((json["packets"] as? [String: Any])?["total"] as? Int, 500 * ShortConnections.packetsPerConnection)
        let summary = try XCTUnwrap(json["summary"] as? [String: Any])
        XCTAssertEqual(summary["connections"] as? Int, 500)
        XCTAssertEqual(summary["completeExchanges"] as? Int, 500)
    }

    /// Runs `capture analyze` on a pipe fed with short connections without end (until the pipe breaks, at most
    /// 400 000) or, with `stallAfter`, that many and then nothing more while the pipe stays open; sends `signal`
    /// once the analysis has progressed: the JSON report's temporary file holds connections, or (text) the pipe
    /// has been read past 2 MB, or (stalled) every byte written was read.
    private func analyzeFedPipe(format: String, signal: Int32, stallAfter: Int? = nil) throws
        -> (outcome: ProcessRunner.Outcome, report: String, leftBeside: [String], writtenBefore: Set<Int>, generated: Int) {
        let directory = LoopbackCapture.temporaryPath("signal")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = LoopbackCapture.temporaryPath("capture.fifo")
        toRemove.append(fifo)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let report = directory + "/report"
        Glibc.signal(SIGPIPE, SIG_IGN)  // the feeder learns that the reader is gone from EPIPE
        let feeder = Feeder(limit: stallAfter ?? 400_000, stall: stallAfter != nil)
        var writtenBefore = Set<Int>()
        let outcome = try ProcessRunner.run(binary, ["capture", "analyze", fifo, "--format", format, "--report", report,
                                                     "-q"], timeout: 120) { pid in
            // The reader opens the pipe first; a writer's open fails with ENXIO until then (bounded wait).
            var fd: Int32 = -1
            for _ in 0..<400 where fd < 0 {
                fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd < 0 { usleep(25_000) }
            }
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, 0)
            feeder.start(fd: fd)
            let temporary = report + ".tmp-\(pid)"
            for _ in 0..<2400 {  // at most 60 s
                if stallAfter != nil {
                    if let written = feeder.stalledAfter, Self.bytesRead(by: pid) >= written { break }
                } else if format == "json" {
                    if let text = try? String(contentsOfFile: temporary, encoding: .utf8), !text.isEmpty {
                        writtenBefore = Self.connectionIndices(in: text)
                        break
                    }
                } else if Self.bytesRead(by: pid) > 2_000_000 {
                    break
                }
                usleep(25_000)
            }
            kill(pid, signal)
        }
        let generated = feeder.join()
        let left = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let kept = LoopbackCapture.temporaryPath("report")
        toRemove.append(kept)
        _ = try? FileManager.default.copyItem(atPath: report, toPath: kept)
        return (outcome, kept, left.sorted(), writtenBefore, generated)
    }

    /// The connection indices in (part of) a compact capture document.
    private static func connectionIndices(in text: String) -> Set<Int> {
        var found = Set<Int>()
        for piece in text.components(separatedBy: "{\"index\":").dropFirst() {
            if let number = Int(piece.prefix { $0.isNumber }) { found.insert(number) }
        }
        return found
    }

    /// The bytes `pid` has read so far (/proc/PID/io, rchar).
    private static func bytesRead(by pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return line.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Writes a pcap of short connections to a pipe on a thread of its own until a write fails or `limit` were
    /// written; with `stall`, it then keeps the pipe open, writing nothing, until `join`.
    private final class Feeder: Sendable {
        private let limit: Int
        private let stall: Bool
        private let started = Atomic<Bool>(false)
        private let written = Atomic<Int>(0)
        private let bytes = Atomic<Int>(0)
        private let stalled = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)
        private let hold = DispatchSemaphore(value: 0)

        init(limit: Int, stall: Bool) {
            self.limit = limit
            self.stall = stall
        }

        /// The bytes written once the feeder stalls; nil before.
        var stalledAfter: Int? { stalled.load(ordering: .acquiring) ? bytes.load(ordering: .relaxed) : nil }

        func start(fd: Int32) {
            started.store(true, ordering: .relaxed)
            Thread { [self] in
                defer {
                    close(fd)
                    done.signal()
                }
                let connections = ShortConnections(every: 1_000)
                guard Self.write(ShortConnections.pcapHeader, to: fd) else { return }
                var count = 0, total = ShortConnections.pcapHeader.count
                while count < limit {
                    let records = connections.pcapRecords(count)
                    guard Self.write(records, to: fd) else { break }
                    count += 1
                    total += records.count
                    written.store(count, ordering: .relaxed)
                }
                guard stall, count == limit else { return }
                bytes.store(total, ordering: .relaxed)
                stalled.store(true, ordering: .releasing)
                _ = hold.wait(timeout: .now() + 180)
            }.start()
        }

        /// Waits for the thread (its writes fail once the reader is gone); returns the connections written.
        func join() -> Int {
            guard started.load(ordering: .relaxed) else { return 0 }
            hold.signal()
            done.wait()
            return written.load(ordering: .relaxed)
        }

        private static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
            (try? FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: bytes)) != nil
        }
    }
}
