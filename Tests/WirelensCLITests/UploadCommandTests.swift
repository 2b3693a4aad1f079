import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// `wirelens upload` end to end against the segment peer (the built `wirelens target`, `SegmentPeer`):
/// bad input, retries in the JSON report, SIGKILL and --resume, progress lines on a non-terminal stderr.
final class UploadCommandTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    private func wirelens(_ arguments: [String], timeout: TimeInterval = 60,
                          afterStart: ((pid_t) -> Void)? = nil) throws -> ProcessRunner.Outcome {
        try CLIHarness.run(arguments, timeout: timeout, afterStart: afterStart)
    }

    private func temporaryPath(_ name: String) -> String {
        let path = CLIHarness.temporaryPath(name)
        paths.append(path)
        return path
    }

    private func makeFile(_ size: Int) throws -> String {
        let path = temporaryPath("upload.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func sha256(_ path: String) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["sha256sum", path])
        return String(outcome.stdout.prefix(64))
    }

    private func decode(_ path: String) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func assertFails(_ arguments: [String], code: ExitStatus, mention: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        try CLIHarness.assertFails(arguments, code: code, mention: mention, file: file, line: line)
    }

    func testBadInputGivesOneLineAndDocumentedCode() throws {
        let servers = try TestServers.get()
        let file = try makeFile(300_000)
        let journal = temporaryPath("bad.sqlite")
        let base = servers.http("/no-segments/x")
        try assertFails(["upload", file, base, "--segment-size", "0"], code: .usage, mention: "--segment-size")
        try assertFails(["upload", file, base, "--segment-size", "big"], code: .usage, mention: "big")
        try assertFails(["upload", file, base, "--parallel", "0"], code: .usage, mention: "--parallel")
        try assertFails(["upload", file, base, "--preset", "android"], code: .usage, mention: "oss-ios")
        try assertFails(["upload", file, base, "--part-url", servers.http("/same")], code: .usage, mention: "{index}")
        try assertFails(["upload", "/nonexistent/file.bin", base], code: .localFile, mention: "/nonexistent/file.bin")
        try assertFails(["upload", file, "http://exa mple/"], code: .usage, mention: "exa mple")
        // nginx has no segment API: one clear line, no retry storm.
        let report = temporaryPath("nosegments.json")
        try assertFails(["upload", file, base, "--journal", journal, "-q", "--format", "json", "--report", report,
                         "--segment-size", "64KiB", "--parallel", "2"], code: .httpError, mention: "no segment API")
        XCTAssertLessThanOrEqual(try decode(report).tasks.count, 2)
    }

    /// Segments to a target reading 720 KB/s per connection through a 16 KiB receive buffer: the upload section
    /// names the server's window and says more segments in flight help, in the JSON (schema-valid) and the text.
    func testTheUploadSaysWhyParallelSegmentsHelp() throws {
        let peer = try SegmentPeer.start(rate: 720_000, receiveBuffer: 16 * 1024)
        defer { peer.stop() }
        let file = try makeFile(1 << 20)
        let report = temporaryPath("why.json")
        let outcome = try wirelens(["upload", file, peer.uploadURL("why"), "--parallel", "2", "--segment-size", "256KiB",
                                    "--journal", temporaryPath("j.sqlite"), "-q", "--format", "json", "--report", report])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let upload = try XCTUnwrap(try decode(report).upload)
        XCTAssertEqual(upload.verdict?.verdict, .serverWindow)
        XCTAssertEqual(upload.verdict?.transactions, 4, "the four segments; the complete call is left out")
        XCTAssertTrue(upload.why?.hasSuffix("more segments in flight help") ?? false, upload.why ?? "no why")
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        let text = try wirelens(["render", report, "--no-color"])
        XCTAssertTrue(text.stdout.contains("Why") && text.stdout.contains("(server-window, "), text.stdout)
    }

    /// `--preset oss-ios` cuts a file as the OSS iOS SDK does (OSSMultipartUploadRequest's 256 KiB parts): the requests
    /// a logging relay (scripts/s3-fault-proxy.py, faulting nothing) passes on to the segment peer for a 1 MiB file
    /// are four part PUTs and the complete call, and the upload verifies.
    func testOssIosPresetSendsTheSDKsPartSize() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let relay = try S3FaultProxy(upstream: peer.port, faults: [], logPath: temporaryPath("relay.jsonl"))
        let file = try makeFile(1 << 20)
        let outcome = try wirelens(["upload", file, "\(relay.endpoint)/upload/oss", "--preset", "oss-ios", "-q",
                                    "--no-journal"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let requests = try relay.requests()
        XCTAssertEqual(requests.filter { $0.method == "PUT" }.map(\.target).sorted(),
                       (0..<4).map { "/upload/oss/part/\($0)" }, "\(requests)")
        XCTAssertEqual(requests.filter { $0.method == "POST" }.map(\.target), ["/upload/oss/complete"])
    }

    func testRetriedUploadReportValidatesAgainstTheSchema() throws {
        let peer = try SegmentPeer.start(failParts: 0.1, seed: 3)
        defer { peer.stop() }
        let file = try makeFile(2 << 20)
        let report = temporaryPath("retried.json")
        let outcome = try wirelens(["upload", file, peer.uploadURL("schema"), "--preset", "oss-ios", "--parallel", "3",
                                    "--segment-size", "64KiB", "--journal", temporaryPath("j.sqlite"), "-q",
                                    "--format", "json", "--report", report])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stderr, "")
        let decoded = try decode(report)
        let upload = try XCTUnwrap(decoded.upload)
        XCTAssertTrue(upload.verified)
        XCTAssertEqual(upload.serverSHA256, try sha256(file))
        XCTAssertEqual(upload.preset, "oss-ios")
        XCTAssertEqual(upload.parallel, 3, "an explicit flag overrides the preset")
        XCTAssertEqual(upload.maxRetries, 3)
        XCTAssertEqual(decoded.configuration.options.idleTimeout, 15_000_000, "the preset's idle timeout")
        XCTAssertEqual(decoded.configuration.options.retry.maxRetries, 0, "the queue retries segments, not the engine")
        XCTAssertTrue(decoded.tasks.allSatisfy { $0.retries == 0 && $0.transactions.count == 1 })
        XCTAssertEqual(decoded.configuration.options.maxHostConnections, 3, "connections per host follow --parallel")
        XCTAssertGreaterThan(upload.failedAttempts, 0, "seed 3 fails some of 32 parts")
        XCTAssertEqual(decoded.tasks.count, 32 + upload.failedAttempts + 1)
        XCTAssertEqual(decoded.command, "upload")
        try CLIHarness.assertValid(report, schema: "report.schema.json")
    }

    /// The segment indices a journal database holds (read with Python's sqlite3, independently of the tool).
    private func journalled(_ journal: String) throws -> [Int] {
        let outcome = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            try:
                rows = sqlite3.connect(sys.argv[1]).execute("SELECT idx FROM segment ORDER BY idx").fetchall()
            except sqlite3.Error:
                rows = []
            print(" ".join(str(r[0]) for r in rows))
            """, journal])
        return outcome.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Runs the upload and kills it (-9) once at least 3 of its 16 segments are journalled (bounded: 10 s);
    /// returns the segments journalled then.
    private func killedOnceJournalled(_ arguments: [String], journal: String,
                                      file: StaticString = #filePath, line: UInt = #line) throws -> [Int] {
        var killedAfter: [Int] = []
        let first = try wirelens(arguments, timeout: 30) { pid in
            for _ in 0..<200 {
                let done = (try? self.journalled(journal)) ?? []
                if done.count >= 3 {
                    kill(pid, SIGKILL)
                    killedAfter = done
                    return
                }
                usleep(50_000)
            }
        }
        XCTAssertTrue(first.signaled, "the first run was to be killed: \(first.stderr)", file: file, line: line)
        let journalledBefore = try journalled(journal)
        XCTAssertGreaterThanOrEqual(journalledBefore.count, 3, file: file, line: line)
        XCTAssertLessThan(journalledBefore.count, 16, "killed before the end", file: file, line: line)
        XCTAssertTrue(Set(killedAfter).isSubset(of: journalledBefore), file: file, line: line)
        return journalledBefore
    }

    /// Runs the upload again with `--resume` and returns its report's upload section, which says it resumed and
    /// skipped the `journalled` segments.
    private func resumed(_ arguments: [String], skipping journalled: [Int],
                         file: StaticString = #filePath, line: UInt = #line) throws -> UploadSection {
        let report = temporaryPath("resumed.json")
        let second = try wirelens(arguments + ["--resume", "--format", "json", "--report", report], timeout: 30)
        XCTAssertEqual(second.status, 0, second.stderr, file: file, line: line)
        let upload = try XCTUnwrap(try decode(report).upload, file: file, line: line)
        XCTAssertTrue(upload.resumed, file: file, line: line)
        XCTAssertEqual(upload.resumedSegmentsSkipped, journalled.count, file: file, line: line)
        return upload
    }

    /// Where "sekrit" (any case) occurs in the journal's files (database, WAL, shared memory), as file names.
    private func secretsIn(journal: String) -> [String] {
        [journal, journal + "-wal", journal + "-shm"].filter { name in
            guard let data = FileManager.default.contents(atPath: name) else { return false }
            let lower = Data(data.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
            return lower.range(of: Data("sekrit".utf8)) != nil
        }
    }

    /// An upload URL with user info and a presigned signature: after a SIGKILL the journal's files (read raw, and
    /// through Python's sqlite3) hold neither, and --resume still finds the upload by the same URL.
    func testTheJournalKeepsNoSecretOfTheURLAndResumeStillFindsTheUpload() throws {
        let peer = try SegmentPeer.start(partDelayMs: 120)
        defer { peer.stop() }
        let file = try makeFile(2 << 20)
        let journal = temporaryPath("secret.sqlite")
        let url = "http://uploader:PASS-SeKrit@127.0.0.1:\(peer.port)/upload/secret"
            + "?X-Amz-Credential=CRED-SeKrit&X-Amz-Signature=SIG-SeKrit&keep=visible"
        let arguments = ["upload", file, url, "--segment-size", "128KiB", "--parallel", "2", "--journal", journal, "-q"]
        let journalledBefore = try killedOnceJournalled(arguments, journal: journal)
        XCTAssertEqual(secretsIn(journal: journal), [], "the killed run's journal files")
        let dump = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            print("\\n".join(sqlite3.connect(sys.argv[1]).iterdump()))
            """, journal])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        XCTAssertFalse(dump.stdout.lowercased().contains("sekrit"), dump.stdout)
        XCTAssertTrue(dump.stdout.contains("/upload/secret/part/{index}?X-Amz-Credential=[REDACTED]"), dump.stdout)

        let upload = try resumed(arguments, skipping: journalledBefore)
        XCTAssertTrue(upload.verified)
        XCTAssertEqual(secretsIn(journal: journal), [])
    }

    func testSIGKILLThenResumeSendsOnlyTheMissingSegments() throws {
        let peer = try SegmentPeer.start(partDelayMs: 120)
        defer { peer.stop() }
        let file = try makeFile(2 << 20)
        let journal = temporaryPath("resume.sqlite")
        let arguments = ["upload", file, peer.uploadURL("killed"), "--segment-size", "128KiB", "--parallel", "2",
                         "--journal", journal, "-q"]
        let journalledBefore = try killedOnceJournalled(arguments, journal: journal)

        let upload = try resumed(arguments, skipping: journalledBefore)
        let sent = upload.attempts.map(\.segment)
        XCTAssertEqual(Set(sent).intersection(journalledBefore), [], "no journalled segment is sent again")
        XCTAssertEqual(Set(sent).union(journalledBefore), Set(0..<16), "every missing segment is sent")
        XCTAssertEqual(sent.count, 16 - journalledBefore.count)
        XCTAssertTrue(upload.verified)
        XCTAssertEqual(upload.serverSHA256, try sha256(file))
        XCTAssertEqual(try journalled(journal), [], "a completed upload leaves no journal entry")

        // --resume with no entry: a note, then a fresh upload.
        let again = try wirelens(arguments.filter { $0 != "-q" } + ["--resume", "--format", "json", "--report", temporaryPath("again.json")])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("no journal entry"), again.stderr)
    }

    func testProgressLinesWhenStderrIsNotATerminal() throws {
        let peer = try SegmentPeer.start(partDelayMs: 150)
        defer { peer.stop() }
        let file = try makeFile(1 << 20)
        let arguments = ["upload", file, peer.uploadURL("progress"), "--segment-size", "64KiB", "--parallel", "2",
                         "--journal", temporaryPath("p.sqlite"), "--report", temporaryPath("p.txt")]
        let shown = try wirelens(arguments)
        XCTAssertFalse(shown.signaled, "the ticker must not crash the run")
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let lines = shown.stderr.split(separator: "\n").filter { $0.hasPrefix("progress ") }
        XCTAssertGreaterThanOrEqual(lines.count, 1, "16 parts at 150 ms, 2 at a time, last over 1 s: \(shown.stderr)")
        for line in lines {
            XCTAssertTrue(line.contains("/1.00 MiB ("), String(line))
            XCTAssertTrue(line.contains(" in flight, "), String(line))
            XCTAssertFalse(line.contains("\u{1B}"), "no escape codes off a terminal")
        }
        let quiet = try wirelens(arguments + ["-q"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "nothing with --quiet")
    }

    func testDefaultJournalLivesUnderXDGStateHome() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let state = temporaryPath("state")
        setenv("XDG_STATE_HOME", state, 1)
        defer { unsetenv("XDG_STATE_HOME") }
        let file = try makeFile(200_000)
        let report = temporaryPath("x.json")
        let outcome = try wirelens(["upload", file, peer.uploadURL("xdg"), "-q", "--preset", "ios", "--format", "json",
                                    "--report", report])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let decoded = try decode(report)
        XCTAssertEqual(decoded.configuration.options.maxHostConnections, 4, "the ios preset's connections per host")
        XCTAssertEqual(decoded.upload?.parallel, 4)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "/wirelens/uploads.sqlite"))
    }

    func testPartURLTemplateServesAPlainPUTServer() throws {
        let servers = try TestServers.get()
        let file = try makeFile(700_000)
        let name = "parts-\(UUID().uuidString)"
        let report = temporaryPath("parts.json")
        let outcome = try wirelens(["upload", file, servers.http("/upload/\(name)"),
                                    "--part-url", servers.http("/upload/\(name)/{offset}-{length}.part"),
                                    "--segment-size", "256KiB", "--no-journal", "-q", "--format", "json", "--report", report])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let upload = try XCTUnwrap(try decode(report).upload)
        XCTAssertFalse(upload.verified, "no complete call, so nothing verified")
        XCTAssertNil(upload.serverSHA256)
        XCTAssertEqual(upload.segmentsSent, 3)
        // nginx stored each part under its offset and length: together they are the file.
        var joined = Data()
        for (offset, length) in [(0, 262_144), (262_144, 262_144), (524_288, 175_712)] {
            let part = servers.uploadRoot + "/www/upload/\(name)/\(offset)-\(length).part"
            joined.append(try Data(contentsOf: URL(fileURLWithPath: part)))
        }
        XCTAssertEqual(joined, try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    func testADigestMismatchIsAFailureNamingBothDigests() throws {
        let peer = try SegmentPeer.start(wrongDigest: true)
        defer { peer.stop() }
        let file = try makeFile(300_000)
        let report = temporaryPath("mismatch.json")
        let outcome = try wirelens(["upload", file, peer.uploadURL("mismatch"), "--segment-size", "128KiB",
                                    "--journal", temporaryPath("m.sqlite"), "-q", "--format", "json", "--report", report])
        XCTAssertEqual(outcome.status, ExitStatus.verification.rawValue, outcome.stderr)
        let upload = try XCTUnwrap(try decode(report).upload)
        XCTAssertFalse(upload.verified)
        let local = try sha256(file)
        let server = try XCTUnwrap(upload.serverSHA256)
        XCTAssertNotEqual(server, local)
        XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(local) && outcome.stderr.contains(server), outcome.stderr)
    }
}
