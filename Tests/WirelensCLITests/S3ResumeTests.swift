import Foundation
import WirelensTestSupport
import XCTest

/// `wirelens upload FILE s3://BUCKET/KEY --resume` after a SIGKILL, against moto checking signatures, behind a loopback
/// relay that passes what each connection sends at 3 MB/s (`ThrottleProxy`), so that the kill lands mid-way through a
/// 64 MiB upload in 8 MiB parts, 2 in flight (each part about 2.8 s). The oracles: aws-cli's list-parts after the
/// kill (the parts the resumed run must not send again), head-object's ETag (`-8`), `aws s3 cp` of the object back
/// compared with the file by `cmp`, list-multipart-uploads (nothing left open), and sqlite3 on the journal (the
/// upload id kept, never the secret; the entry gone once done).
final class S3ResumeTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("s3resume")
    private static let bucket = "wirelens-resume"
    private static let partCount = 8

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// moto with a user and the bucket, and the relay in front of it.
    private func start() throws -> (MotoServer, MotoServer.KeyPair, ThrottleProxy) {
        let server = try MotoServer(checkingSignatures: true)
        let user = try server.makeUser()
        let made = try server.aws(["s3api", "create-bucket", "--bucket", Self.bucket], credentials: user)
        XCTAssertEqual(made.status, 0, made.stderr)
        return (server, user, try ThrottleProxy(upstream: server.port, bytesPerSecond: 3_000_000))
    }

    private var journal: String { "\(directory)/journal.sqlite" }

    /// The upload command through the relay, in 8 MiB parts, 2 in flight, with the test's journal and a JSON report.
    private func upload(_ path: String, key: String, proxy: ThrottleProxy, user: MotoServer.KeyPair,
                        report: String) -> [String] {
        ["upload", path, "s3://\(Self.bucket)/\(key)", "--endpoint-url", proxy.endpoint, "-u", "\(user.key):\(user.secret)",
         "--segment-size", "8MiB", "--parallel", "2", "--journal", journal, "-q", "--format", "json", "--report", report]
    }

    private func json(_ outcome: ProcessRunner.Outcome, file: StaticString = #filePath,
                      line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                             file: file, line: line)
    }

    /// The ids of the bucket's open multipart uploads, by aws-cli.
    private func openUploads(_ server: MotoServer, _ user: MotoServer.KeyPair) throws -> [String] {
        let open = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket], credentials: user))
        return (open["Uploads"] as? [[String: Any]] ?? []).compactMap { $0["UploadId"] as? String }
    }

    /// The part numbers the server holds of an upload, by aws-cli's list-parts.
    private func listedParts(_ server: MotoServer, _ user: MotoServer.KeyPair, key: String,
                             uploadId: String) throws -> [Int] {
        let listed = try json(try server.aws(["s3api", "list-parts", "--bucket", Self.bucket, "--key", key,
                                              "--upload-id", uploadId], credentials: user))
        return (listed["Parts"] as? [[String: Any]] ?? []).compactMap { $0["PartNumber"] as? Int }.sorted()
    }

    /// Runs the upload and SIGKILLs it once list-parts shows at least one part and not all (polled, bounded by 90 s);
    /// returns the upload id and the parts list-parts shows a second after the kill, when nothing moves any more.
    private func killMidway(_ arguments: [String], _ server: MotoServer, _ user: MotoServer.KeyPair,
                            key: String) throws -> (uploadId: String, parts: [Int]) {
        var uploadId: String?
        let deadline = Date().addingTimeInterval(90)
        let first = try WirelensCLI.run(arguments, timeout: 180) { pid in
            for _ in 0..<400 where Date() < deadline {
                if uploadId == nil { uploadId = try? self.openUploads(server, user).first }
                if let id = uploadId, let parts = try? self.listedParts(server, user, key: key, uploadId: id),
                   !parts.isEmpty {
                    if parts.count < Self.partCount { kill(pid, SIGKILL) }
                    return
                }
                usleep(100_000)
            }
        }
        XCTAssertTrue(first.signaled, "the first run was to be killed mid-way: \(first.stderr)")
        usleep(1_000_000)
        let id = try XCTUnwrap(uploadId)
        return (id, try listedParts(server, user, key: key, uploadId: id))
    }

    /// The report's `upload` section.
    private func section(_ report: String) throws -> [String: Any] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                     as? [String: Any])
        return try XCTUnwrap(document["upload"] as? [String: Any])
    }

    /// The part numbers a report's run sent and the server accepted.
    private func sentParts(_ upload: [String: Any]) -> [Int] {
        (upload["attempts"] as? [[String: Any]] ?? []).filter { $0["succeeded"] as? Bool == true }
            .compactMap { ($0["segment"] as? Int).map { $0 + 1 } }.sorted()
    }

    /// What sqlite3 reads from the journal (one line per row).
    private func journalRows(_ sql: String) throws -> [String] {
        let outcome = try ProcessRunner.run("/usr/bin/sqlite3", [journal, sql], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout.split(separator: "\n").map(String.init)
    }

    /// The object is the file: head-object's ETag ends in -8 and is the one the report names, `aws s3 cp` back gives
    /// the file's bytes, no upload is left open, and the journal has no entry left.
    private func assertObject(_ server: MotoServer, _ user: MotoServer.KeyPair, key: String, equals path: String,
                              upload: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        let head = try json(try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", key],
                                           credentials: user), file: file, line: line)
        let served = try XCTUnwrap(head["ETag"] as? String, file: file, line: line)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        XCTAssertTrue(served.hasSuffix("-\(Self.partCount)"), served, file: file, line: line)
        let s3 = upload["s3"] as? [String: Any]
        XCTAssertEqual(s3?["objectETag"] as? String, served, file: file, line: line)
        XCTAssertEqual(s3?["etagMatches"] as? Bool, true, file: file, line: line)
        let back = "\(directory)/back.bin"
        let copy = try server.aws(["s3", "cp", "s3://\(Self.bucket)/\(key)", back, "--only-show-errors"],
                                  credentials: user, timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr, file: file, line: line)
        XCTAssertEqual(try ProcessRunner.run("/usr/bin/cmp", ["-s", path, back], timeout: 30).status, 0,
                       "the object is not the file", file: file, line: line)
        XCTAssertEqual(try openUploads(server, user), [], file: file, line: line)
        XCTAssertEqual(try journalRows("SELECT count(*) FROM upload"), ["0"], file: file, line: line)
    }

    /// A killed upload and its --resume: the server, the file, the journalled upload id, the parts list-parts showed
    /// after the kill, and the resumed run's report.
    private struct Resumed {
        var server: MotoServer
        var user: MotoServer.KeyPair
        var path: String
        var key: String
        var uploadId: String
        var before: [Int]
        var report: String
        var section: [String: Any]
    }

    /// Uploads a 64 MiB file (bytes from `seed`) to `resume/NAME`, SIGKILLs the run mid-way, calls `between` with the
    /// upload id, then runs the same command with --resume, which must exit 0.
    private func killThenResume(_ name: String, seed: UInt64,
                                between: (MotoServer, MotoServer.KeyPair, _ uploadId: String) throws -> Void) throws -> Resumed {
        let (server, user, proxy) = try start()
        let path = "\(directory)/\(name)"
        try SplitMix64.writeFile(path, bytes: 64 << 20, seed: seed)
        let key = "resume/\(name)"
        let (uploadId, before) = try killMidway(upload(path, key: key, proxy: proxy, user: user,
                                                       report: "\(directory)/first.json"), server, user, key: key)
        try between(server, user, uploadId)
        let report = "\(directory)/resumed.json"
        let resumed = try CLIHarness.run(upload(path, key: key, proxy: proxy, user: user, report: report) + ["--resume"],
                                         timeout: 180)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        return Resumed(server: server, user: user, path: path, key: key, uploadId: uploadId, before: before,
                       report: report, section: try section(report))
    }

    /// SIGKILL once some parts are on the server, then the same command with --resume: the journal kept the upload
    /// id (and not the secret), the resumed run asks ListParts, sends exactly the parts list-parts did not show after
    /// the kill and completes that same upload; the object is the file.
    func testSIGKILLThenResumeSendsOnlyTheMissingParts() throws {
        let run = try killThenResume("big.bin", seed: 640) { _, user, uploadId in
            XCTAssertEqual(try journalRows("SELECT remote_upload_id FROM upload"), [uploadId])
            for file in [journal, journal + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                XCTAssertNil(bytes.range(of: Data(user.secret.utf8)), "the secret is in \(file)")
            }
        }
        XCTAssertFalse(run.before.isEmpty)
        XCTAssertLessThan(run.before.count, Self.partCount, "\(run.before)")
        let missing = (1...Self.partCount).filter { !run.before.contains($0) }
        print("S3ResumeTests: list-parts after the kill \(run.before), the resumed run sent \(sentParts(run.section))")
        XCTAssertEqual(sentParts(run.section), missing, "listed before: \(run.before)")
        XCTAssertEqual(run.section["resumed"] as? Bool, true)
        XCTAssertEqual(run.section["resumedSegmentsSkipped"] as? Int, run.before.count)
        XCTAssertEqual((run.section["s3"] as? [String: Any])?["uploadId"] as? String, run.uploadId)
        XCTAssertNil(run.section["notes"], "\(run.section["notes"] ?? "")")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.report)))
                                     as? [String: Any])
        let methods = (document["tasks"] as? [[String: Any]] ?? [])
            .compactMap { (($0["transactions"] as? [[String: Any]])?.first?["method"]) as? String }
        XCTAssertEqual(methods, ["GET"] + Array(repeating: "PUT", count: missing.count) + ["POST"])
        try assertObject(run.server, run.user, key: run.key, equals: run.path, upload: run.section)
        try CLIHarness.assertValid(run.report, schema: "report.schema.json")
    }

    /// An upload aborted meanwhile (aws-cli's abort-multipart-upload): --resume finds NoSuchUpload, says so in the
    /// report's notes, and sends all 8 parts in a new upload.
    func testResumeOfAnAbortedUploadStartsANewOne() throws {
        let run = try killThenResume("aborted.bin", seed: 641) { server, user, uploadId in
            let abort = try server.aws(["s3api", "abort-multipart-upload", "--bucket", Self.bucket, "--key",
                                        "resume/aborted.bin", "--upload-id", uploadId], credentials: user)
            XCTAssertEqual(abort.status, 0, abort.stderr)
        }
        let notes = run.section["notes"] as? [String] ?? []
        print("S3ResumeTests: the resumed run's notes: \(notes)")
        XCTAssertTrue(notes.contains { $0.contains("no longer knows upload \(run.uploadId)") && $0.contains("NoSuchUpload") },
                      "\(notes)")
        XCTAssertEqual(sentParts(run.section), Array(1...Self.partCount))
        XCTAssertEqual(run.section["resumed"] as? Bool, false)
        let newId = (run.section["s3"] as? [String: Any])?["uploadId"] as? String
        XCTAssertNotNil(newId)
        XCTAssertNotEqual(newId, run.uploadId)
        try assertObject(run.server, run.user, key: run.key, equals: run.path, upload: run.section)
        try CLIHarness.assertValid(run.report, schema: "report.schema.json")
    }

    /// The file rewritten between the runs (same size, new bytes and modification time): --resume says the file
    /// changed, aborts the old upload (aws-cli lists none open at the end) and sends all 8 parts of the new bytes.
    func testResumeOfAChangedFileStartsANewUpload() throws {
        let run = try killThenResume("changing.bin", seed: 642) { _, _, _ in
            try SplitMix64.writeFile("\(directory)/changing.bin", bytes: 64 << 20, seed: 643)
        }
        let notes = run.section["notes"] as? [String] ?? []
        print("S3ResumeTests: the resumed run's notes: \(notes)")
        XCTAssertTrue(notes.contains { $0.contains("changed since its journalled upload")
                          && $0.contains("old upload \(run.uploadId) was aborted") }, "\(notes)")
        XCTAssertEqual(sentParts(run.section), Array(1...Self.partCount))
        XCTAssertNotEqual((run.section["s3"] as? [String: Any])?["uploadId"] as? String, run.uploadId)
        try assertObject(run.server, run.user, key: run.key, equals: run.path, upload: run.section)
        try CLIHarness.assertValid(run.report, schema: "report.schema.json")
    }
}
