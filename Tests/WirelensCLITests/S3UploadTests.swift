import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `wirelens upload FILE s3://BUCKET/KEY --endpoint-url URL` against moto checking signatures
/// (`MotoServer(checkingSignatures:)`): the oracles are aws-cli's head-object (the ETag moto computed, its part
/// count), `aws s3 cp` of the object back compared with the file by `cmp`, md5sum of the file for a PutObject, and
/// aws-cli's list-multipart-uploads for what is left on the server.
final class S3UploadTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("s3upload")
    private static let bucket = "wirelens-uploads"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func file(_ name: String, bytes count: Int, seed: UInt64) throws -> String {
        let path = "\(directory)/\(name)"
        try SplitMix64.writeFile(path, bytes: count, seed: seed)
        return path
    }

    private func json(_ outcome: ProcessRunner.Outcome, file: StaticString = #filePath,
                      line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                             file: file, line: line)
    }

    private func server(settings: [String: String] = [:]) throws -> (MotoServer, MotoServer.KeyPair) {
        let server = try MotoServer(checkingSignatures: true, settings: settings)
        let user = try server.makeUser()
        let made = try server.aws(["s3api", "create-bucket", "--bucket", Self.bucket], credentials: user)
        XCTAssertEqual(made.status, 0, made.stderr)
        return (server, user)
    }

    /// The JSON report at `path`, and its `upload` section.
    private func report(_ path: String, file: StaticString = #filePath,
                        line: UInt = #line) throws -> (document: [String: Any], upload: [String: Any]) {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                                     as? [String: Any], file: file, line: line)
        return (document, try XCTUnwrap(document["upload"] as? [String: Any], file: file, line: line))
    }

    /// head-object's ETag of `key` (quotes taken off) and its size, by aws-cli.
    private func head(_ server: MotoServer, _ user: MotoServer.KeyPair, key: String,
                      file: StaticString = #filePath, line: UInt = #line) throws -> (etag: String, bytes: Int?) {
        let head = try json(try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", key],
                                           credentials: user), file: file, line: line)
        let etag = try XCTUnwrap(head["ETag"] as? String, file: file, line: line)
        return (etag.trimmingCharacters(in: CharacterSet(charactersIn: "\"")), head["ContentLength"] as? Int)
    }

    /// `aws s3 cp` of `key` back to a file is byte for byte `path` (cmp).
    private func assertCopyBack(_ server: MotoServer, _ user: MotoServer.KeyPair, key: String, equals path: String,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let back = "\(directory)/back.bin"
        let copy = try server.aws(["s3", "cp", "s3://\(Self.bucket)/\(key)", back, "--only-show-errors"],
                                  credentials: user, timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr, file: file, line: line)
        XCTAssertEqual(try ProcessRunner.run("/usr/bin/cmp", ["-s", path, back], timeout: 30).status, 0,
                       file: file, line: line)
        unlink(back)
    }

    /// The ids of the bucket's open multipart uploads, by aws-cli's list-multipart-uploads.
    private func openUploads(_ server: MotoServer, _ user: MotoServer.KeyPair) throws -> [String] {
        let open = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket],
                                           credentials: user))
        return (open["Uploads"] as? [[String: Any]] ?? []).compactMap { $0["UploadId"] as? String }
    }

    /// 64 MiB in 8 MiB parts, 4 in flight, to a key with a space: head-object's ETag ends in -8 and is the one the
    /// report states (and says matches the parts), `aws s3 cp` gives the same bytes back, no upload is left open,
    /// and every request is a task with its phases and a verdict. (moto's signature check refuses keys with
    /// non-ASCII letters even from aws-cli; S3AnswerTests sends one to moto unchecked.)
    func testMultipartUploadToMoto() throws {
        let (server, user) = try server()
        let path = try file("big.bin", bytes: 64 << 20, seed: 64)
        let key = "dir/big file.bin"
        let report = "\(directory)/upload.json"
        let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/\(key)", "--endpoint-url", server.endpoint,
                                          "-u", "\(user.key):\(user.secret)", "--segment-size", "8MiB", "--parallel", "4",
                                          "-q", "--format", "json", "--report", report], timeout: 300)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)

        let head = try json(try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", key],
                                           credentials: user))
        let served = try XCTUnwrap(head["ETag"] as? String).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        XCTAssertTrue(served.hasSuffix("-8"), served)
        XCTAssertEqual(head["ContentLength"] as? Int, 64 << 20)
        let back = "\(directory)/back.bin"
        let copy = try server.aws(["s3", "cp", "s3://\(Self.bucket)/\(key)", back, "--only-show-errors"],
                                  credentials: user, timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try ProcessRunner.run("/usr/bin/cmp", ["-s", path, back], timeout: 30).status, 0)
        let open = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket],
                                           credentials: user))
        XCTAssertNil(open["Uploads"], "\(open)")

        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                     as? [String: Any])
        let upload = try XCTUnwrap(document["upload"] as? [String: Any])
        let s3 = try XCTUnwrap(upload["s3"] as? [String: Any], "\(upload)")
        XCTAssertEqual(s3["objectETag"] as? String, served)
        XCTAssertEqual(s3["expectedETag"] as? String, served)
        XCTAssertEqual(s3["etagMatches"] as? Bool, true)
        XCTAssertEqual(s3["parts"] as? Int, 8)
        XCTAssertEqual(upload["verified"] as? Bool, true)
        XCTAssertLessThanOrEqual(upload["peakInFlight"] as? Int ?? 99, 4)
        let tasks = try XCTUnwrap(document["tasks"] as? [[String: Any]])
        let requests = tasks.compactMap { ($0["transactions"] as? [[String: Any]])?.first }
        XCTAssertEqual(requests.map { $0["method"] as? String ?? "" },
                       ["POST"] + Array(repeating: "PUT", count: 8) + ["POST"])
        for request in requests {
            let url = request["url"] as? String ?? "?"
            XCTAssertNotNil((request["phasesMs"] as? [String: Any])?["total"] as? Double, url)
            XCTAssertEqual(request["statusCode"] as? Int, 200, url)
            XCTAssertNotNil((request["diagnosis"] as? [String: Any])?["verdict"] as? String, url)
        }
        try CLIHarness.assertValid(report, schema: "report.schema.json")
    }

    /// A Complete the server refuses (moto told parts must be 64 MiB: EntityTooSmall): one line naming S3's code,
    /// exit 4, and the upload aborted (aws-cli lists no open upload) and its journal entry gone (sqlite3); with
    /// --keep-parts the upload stays open, the one the report names, and so does its entry, for --resume.
    func testRefusedCompleteAbortsUnlessKeepParts() throws {
        let (server, user) = try server(settings: ["S3_UPLOAD_PART_MIN_SIZE": "\(64 << 20)"])
        let path = try file("two.bin", bytes: 12 << 20, seed: 12)
        let journal = "\(directory)/journal.sqlite"
        for keep in [false, true] {
            let report = "\(directory)/refused-\(keep).json"
            let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/two.bin", "--endpoint-url",
                                              server.endpoint, "-u", "\(user.key):\(user.secret)", "-q", "--format",
                                              "json", "--report", report, "--journal", journal]
                                             + (keep ? ["--keep-parts"] : []), timeout: 120)
            XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, outcome.stderr)
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("EntityTooSmall"), outcome.stderr)
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                         as? [String: Any])
            let s3 = try XCTUnwrap((document["upload"] as? [String: Any])?["s3"] as? [String: Any])
            XCTAssertEqual(s3["aborted"] as? Bool, !keep)
            XCTAssertEqual(s3["keptParts"] as? Bool, keep)
            let open = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket],
                                               credentials: user))
            let ids = (open["Uploads"] as? [[String: Any]] ?? []).compactMap { $0["UploadId"] as? String }
            XCTAssertEqual(ids, keep ? [try XCTUnwrap(s3["uploadId"] as? String)] : [], "\(open)")
            let entries = try ProcessRunner.run("/usr/bin/sqlite3", [journal, "SELECT remote_upload_id FROM upload"],
                                                timeout: 30)
            XCTAssertEqual(entries.stdout.split(separator: "\n").map(String.init), ids, entries.stderr)
        }
    }

    /// A file under 8 MiB goes as one PutObject: one task, and head-object's ETag is the file's md5sum.
    func testSmallFileIsOnePutObject() throws {
        let (server, user) = try server()
        let path = try file("small.bin", bytes: 300_007, seed: 3)
        let report = "\(directory)/small.json"
        let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/small.bin", "--endpoint-url",
                                          server.endpoint, "-u", "\(user.key):\(user.secret)", "-q", "--format", "json",
                                          "--report", report], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let head = try json(try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", "small.bin"],
                                           credentials: user))
        let sum = try ProcessRunner.run("/usr/bin/md5sum", [path], timeout: 30)
        XCTAssertEqual(head["ETag"] as? String, "\"\(sum.stdout.prefix(32))\"")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                     as? [String: Any])
        XCTAssertEqual((document["tasks"] as? [Any])?.count, 1)
        XCTAssertEqual(((document["upload"] as? [String: Any])?["s3"] as? [String: Any])?["etagMatches"] as? Bool, true)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
    }

    /// A bucket that does not exist: one line naming S3's NoSuchBucket, exit 4 (an HTTP error), nothing created;
    /// a wrong secret: one line naming SignatureDoesNotMatch, exit 4; s3:// without --endpoint-url, a part under
    /// 5 MiB and one over 5 GiB (S3's bounds, whatever the file's size): one-line usage errors (exit 2), and aws-cli
    /// lists no upload begun.
    func testRefusalsAreOneLine() throws {
        let (server, user) = try server()
        let path = try file("mid.bin", bytes: 9 << 20, seed: 9)
        for (destination, secret, code) in [("s3://wirelens-absent/k.bin", user.secret, "NoSuchBucket"),
                                            ("s3://\(Self.bucket)/k.bin", "not-the-secret", "SignatureDoesNotMatch")] {
            try CLIHarness.assertFails(["upload", path, destination, "--endpoint-url", server.endpoint,
                                        "-u", "\(user.key):\(secret)", "-q", "--report", "\(directory)/r.json"],
                                       code: .httpError, mention: code)
        }
        let open = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket],
                                           credentials: user))
        XCTAssertNil(open["Uploads"], "\(open)")
        try CLIHarness.assertFails(["upload", path, "s3://\(Self.bucket)/k.bin", "-u", "a:b"], code: .usage,
                                   mention: "--endpoint-url")
        try CLIHarness.assertFails(["upload", path, "s3://\(Self.bucket)/k.bin", "--endpoint-url", server.endpoint,
                                    "-u", "a:b", "--segment-size", "1MiB"], code: .usage, mention: "5 MiB")
        // A part over S3's 5 GiB maximum, even for a file that small: refused before any request.
        try CLIHarness.assertFails(["upload", path, "s3://\(Self.bucket)/k6.bin", "--endpoint-url", server.endpoint,
                                    "-u", "a:b", "--segment-size", "6GiB"], code: .usage, mention: "5 GiB")
        let after = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket],
                                            credentials: user))
        XCTAssertNil(after["Uploads"], "\(after)")
    }

    /// moto with a user and the bucket, behind scripts/s3-fault-proxy.py answering the first UploadPart of one part
    /// with an S3 error (its log of requests in the test's directory).
    private func relayed(faulting fault: (part: Int, status: Int, code: String))
        throws -> (MotoServer, MotoServer.KeyPair, S3FaultProxy) {
        let (server, user) = try server()
        return (server, user, try S3FaultProxy(upstream: server.port, faults: [fault],
                                               logPath: "\(directory)/relay.jsonl"))
    }

    /// The upload command through the relay: 8 MiB parts, 3 in flight (every part of a 20 MiB file at once), quiet,
    /// with a JSON report.
    private func relayedUpload(_ path: String, key: String, _ relay: S3FaultProxy, _ user: MotoServer.KeyPair,
                               report: String) -> [String] {
        ["upload", path, "s3://\(Self.bucket)/\(key)", "--endpoint-url", relay.endpoint, "-u", "\(user.key):\(user.secret)",
         "--segment-size", "8MiB", "--parallel", "3", "-q", "--format", "json", "--report", report]
    }

    /// A 503 SlowDown on the first UploadPart of part 2 (answered by scripts/s3-fault-proxy.py in front of moto, with
    /// S3's error document) is retried after a backoff: the relay's log, the oracle, shows part 2 PUT twice, the second
    /// at least 100 ms after the 503 went out (the first retry's backoff is 125-250 ms), every other part once; the
    /// upload completes, head-object's ETag is -3 and the report's, `aws s3 cp` back equals the file, and the report
    /// shows the failed attempt (HTTP 503) and its retry.
    func testSlowDownOnAPartIsRetriedAfterABackoff() throws {
        let (server, user, relay) = try relayed(faulting: (part: 2, status: 503, code: "SlowDown"))
        let path = try file("slow.bin", bytes: 20 << 20, seed: 20)
        let reportPath = "\(directory)/slow.json"
        let outcome = try CLIHarness.run(relayedUpload(path, key: "slow.bin", relay, user, report: reportPath),
                                         timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)

        let puts = try relay.requests().filter { $0.partNumber != nil }
        XCTAssertEqual(puts.compactMap(\.partNumber).sorted(), [1, 2, 2, 3], "\(puts)")
        let second = puts.filter { $0.partNumber == 2 }
        XCTAssertEqual(second.map(\.answered), [503, nil], "\(second)")
        if second.count == 2 {
            XCTAssertGreaterThan(second[1].t - second[0].t, 0.1, "the retry came without a backoff: \(second)")
            print("S3 SlowDown: part 2 sent again \(Int((second[1].t - second[0].t) * 1000)) ms after the 503")
        }

        let served = try head(server, user, key: "slow.bin")
        XCTAssertTrue(served.etag.hasSuffix("-3"), served.etag)
        XCTAssertEqual(served.bytes, 20 << 20)
        try assertCopyBack(server, user, key: "slow.bin", equals: path)
        let (document, upload) = try report(reportPath)
        XCTAssertEqual((upload["s3"] as? [String: Any])?["objectETag"] as? String, served.etag)
        XCTAssertEqual(upload["failedAttempts"] as? Int, 1)
        XCTAssertEqual(upload["segmentsRetried"] as? Int, 1)
        let attempts = (upload["attempts"] as? [[String: Any]] ?? []).filter { $0["segment"] as? Int == 1 }
        XCTAssertEqual(attempts.map { $0["attempt"] as? Int ?? 0 }, [1, 2], "\(attempts)")
        XCTAssertEqual(attempts.map { $0["succeeded"] as? Bool ?? true }, [false, true], "\(attempts)")
        let statuses = (document["tasks"] as? [[String: Any]] ?? [])
            .compactMap { ($0["transactions"] as? [[String: Any]])?.last?["statusCode"] as? Int }
        XCTAssertEqual(statuses.filter { $0 == 503 }.count, 1, "\(statuses)")
        XCTAssertEqual(try openUploads(server, user), [])
        try CLIHarness.assertValid(reportPath, schema: "report.schema.json")
    }

    /// A part refused with 403 AccessDenied (the relay's answer to the first UploadPart of part 2) is not retried:
    /// one line naming AccessDenied, exit 4, and the upload aborted though other parts were in flight: the relay's log
    /// shows part 2 PUT once and the AbortMultipartUpload (DELETE ?uploadId) passed on after the refusal, and aws-cli
    /// lists no open upload; the report says `aborted`.
    func testRefusedPartGivesUpAtOnceAndAborts() throws {
        let (server, user, relay) = try relayed(faulting: (part: 2, status: 403, code: "AccessDenied"))
        let path = try file("denied.bin", bytes: 20 << 20, seed: 21)
        let reportPath = "\(directory)/denied.json"
        try CLIHarness.assertFails(relayedUpload(path, key: "denied.bin", relay, user, report: reportPath),
                                   code: ExitStatus.httpError, mention: "AccessDenied")

        let requests = try relay.requests()
        let refused = requests.filter { $0.partNumber == 2 }
        XCTAssertEqual(refused.map(\.answered), [403], "\(requests)")
        // One abort, or two when the first got an answer that is retried (a second DELETE about 190 ms later in ci15, and
        // 1 run in 5 on the binary before that session's changes; not yet traced to the server's status).
        let aborts = requests.filter { $0.method == "DELETE" && $0.target.contains("uploadId=") }
        XCTAssertTrue((1...2).contains(aborts.count), "\(requests)")
        if let abort = aborts.first, let refusal = refused.first {
            XCTAssertGreaterThan(abort.t, refusal.t)
            XCTAssertNil(abort.answered)
            XCTAssertFalse(requests.contains { $0.partNumber != nil && $0.t > abort.t }, "a part after the abort: \(requests)")
        }
        XCTAssertEqual(try openUploads(server, user), [])
        let (_, upload) = try report(reportPath)
        XCTAssertEqual((upload["s3"] as? [String: Any])?["aborted"] as? Bool, true, "\(upload)")
        XCTAssertEqual(upload["failedAttempts"] as? Int, 1, "\(upload)")
    }

    /// The aws-cli preset cuts a file as aws-cli does, read from the installed aws-cli itself: its transfer defaults
    /// (awscli's `DEFAULTS`: multipart_threshold, multipart_chunksize, max_concurrent_requests) are the preset's, and
    /// for files one byte under the threshold, at it, and over two chunks, `wirelens upload --preset aws-cli` and
    /// `aws s3 cp` of the same bytes give objects with the same ETag (a PutObject's MD5, or `-N` of the same parts);
    /// the one under the threshold is one request, the others have max_concurrent_requests parts in flight at most.
    func testAwsCliPresetCutsFilesAsAwsCli() throws {
        let (server, user) = try server()
        let defaults = try ProcessRunner.run("\(MotoServer.venv)/bin/python", ["-c", """
            import json; from awscli.customizations.s3.transferconfig import DEFAULTS; print(json.dumps(DEFAULTS))
            """], timeout: 60)
        let config = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(defaults.stdout.utf8)) as? [String: Any],
                                   defaults.stderr)
        let threshold = try XCTUnwrap(config["multipart_threshold"] as? Int)
        let chunk = try XCTUnwrap(config["multipart_chunksize"] as? Int)
        let concurrency = try XCTUnwrap(config["max_concurrent_requests"] as? Int)
        for (index, size) in [threshold - 1, threshold, 2 * chunk + 1].enumerated() {
            let path = try file("preset-\(index).bin", bytes: size, seed: UInt64(30 + index))
            let reportPath = "\(directory)/preset-\(index).json"
            let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/wirelens-\(index)", "--endpoint-url",
                                              server.endpoint, "-u", "\(user.key):\(user.secret)", "--preset", "aws-cli",
                                              "-q", "--no-journal", "--format", "json", "--report", reportPath],
                                             timeout: 120)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            let copy = try server.aws(["s3", "cp", path, "s3://\(Self.bucket)/aws-\(index)", "--only-show-errors"],
                                      credentials: user, timeout: 120)
            XCTAssertEqual(copy.status, 0, copy.stderr)
            let ours = try head(server, user, key: "wirelens-\(index)")
            let theirs = try head(server, user, key: "aws-\(index)")
            XCTAssertEqual(ours.etag, theirs.etag, "a \(size)-byte file")
            XCTAssertEqual(ours.bytes, size)
            let (document, upload) = try report(reportPath)
            if size < threshold {
                XCTAssertEqual((document["tasks"] as? [Any])?.count, 1)
            } else {
                XCTAssertEqual(upload["parallel"] as? Int, concurrency)
            }
            print("S3 aws-cli preset: \(size) bytes: ETag \(ours.etag), aws s3 cp's \(theirs.etag)")
        }
    }

    /// The relay's S3 error to one request of an upload of `bytes` (20 MiB) in 8 MiB parts, 3 in flight, through
    /// scripts/s3-fault-proxy.py in front of moto (checking signatures; `on`, else a new one), with a journal: the
    /// outcome, the relay's log (whose targets name the upload id moto gave), the server, its user, the report and the
    /// journal. Signed with the user's key pair, or with `environment`'s credentials when it is given.
    private func refused(_ fault: (part: Int, status: Int, code: String), name: String,
                         on peer: (MotoServer, MotoServer.KeyPair)? = nil, environment: [String] = [],
                         bytes: Int = 20 << 20)
        throws -> (outcome: ProcessRunner.Outcome, log: [S3FaultProxy.Request], server: MotoServer,
                   user: MotoServer.KeyPair, report: String, journal: String) {
        let (server, user) = try peer ?? server()
        let relay = try S3FaultProxy(upstream: server.port, faults: [fault], logPath: "\(directory)/\(name).jsonl")
        let path = try file("\(name).bin", bytes: bytes, seed: 22)
        let report = "\(directory)/\(name).json"
        let journal = "\(directory)/\(name).sqlite"
        var arguments = relayedUpload(path, key: "\(name).bin", relay, user, report: report) + ["--journal", journal]
        if !environment.isEmpty, let at = arguments.firstIndex(of: "-u") { arguments.removeSubrange(at...at + 1) }
        let outcome = try wirelens(arguments, environment: environment)
        return (outcome, try relay.requests(), server, user, report, journal)
    }

    /// `wirelens ARGUMENTS` with `environment` set and every AWS variable of the test's own environment unset.
    private func wirelens(_ arguments: [String], environment: [String] = []) throws -> ProcessRunner.Outcome {
        let unset = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                     "AWS_DEFAULT_REGION"].flatMap { ["-u", $0] }
        return try ProcessRunner.run("/usr/bin/env", unset + environment + [WirelensCLI.path] + arguments, timeout: 120)
    }

    /// The rows of the journal's upload table (sqlite3).
    private func journalEntries(_ journal: String) throws -> [String] {
        let rows = try ProcessRunner.run("/usr/bin/sqlite3", [journal, "SELECT remote_upload_id FROM upload"], timeout: 30)
        XCTAssertEqual(rows.status, 0, rows.stderr)
        return rows.stdout.split(separator: "\n").map(String.init)
    }

    /// An upload id the server no longer knows mid-run, answered (S3's 404 NoSuchUpload) to the first UploadPart of
    /// part 2 of 4 by the relay (moto itself answers an unknown id to UploadPart with a 500, not S3's error): the run
    /// gives up at once, one line naming NoSuchUpload and the upload id, exit 4; the relay's log shows no part PUT
    /// twice and none started after the 404, and no Complete or
    /// AbortMultipartUpload (DELETE: the upload being gone, there is nothing to abort); the journal (sqlite3) keeps
    /// no entry to resume.
    func testUploadIdUnknownToAPartGivesUpAtOnce() throws {
        let run = try refused((part: 2, status: 404, code: "NoSuchUpload"), name: "gone-part", bytes: 32 << 20)
        let id = run.log.lazy.compactMap(\.uploadId).first ?? "none"
        print("S3 NoSuchUpload to part 2: \(run.outcome.stderr)")
        XCTAssertEqual(run.outcome.status, ExitStatus.httpError.rawValue, run.outcome.stderr)
        XCTAssertEqual(run.outcome.stderr.split(separator: "\n").count, 1, run.outcome.stderr)
        for mention in ["NoSuchUpload", "upload \(id)", "UploadPart 2", "run the command again"] {
            XCTAssertTrue(run.outcome.stderr.contains(mention), "'\(mention)' not in \(run.outcome.stderr)")
        }
        XCTAssertEqual(run.log.filter { $0.answered != nil }.compactMap(\.partNumber), [2], "\(run.log)")
        // Parts 1 and 3 go out beside part 2 unless the 404 came first (a loaded CI host); none goes out twice, and
        // none starts once the client had the 404 (a second after it: a part starts only when one in flight ended).
        let parts = run.log.compactMap(\.partNumber)
        XCTAssertEqual(parts.count, Set(parts).count, "a part sent again: \(run.log)")
        let refusedAt = try XCTUnwrap(run.log.first { $0.answered != nil }?.t)
        XCTAssertFalse(run.log.contains { $0.partNumber != nil && $0.t > refusedAt + 1 }, "a part sent after: \(run.log)")
        XCTAssertFalse(run.log.contains(where: \.isComplete), "\(run.log)")
        XCTAssertFalse(run.log.contains { $0.method == "DELETE" }, "an abort of an upload the server said is gone")
        XCTAssertEqual(try journalEntries(run.journal), [])
        let (_, upload) = try report(run.report)
        XCTAssertNotEqual((upload["s3"] as? [String: Any])?["aborted"] as? Bool, true, "\(upload)")
    }

    /// The same answered to CompleteMultipartUpload (the relay's 404 NoSuchUpload to the first POST ?uploadId): one
    /// line naming NoSuchUpload, CompleteMultipartUpload and the upload id, exit 4; the relay's log shows the three
    /// parts PUT once, the Complete once (not retried) and no AbortMultipartUpload; no journal entry is left.
    func testUploadIdUnknownToCompleteGivesUpAtOnce() throws {
        let run = try refused((part: S3FaultProxy.complete, status: 404, code: "NoSuchUpload"), name: "gone-complete")
        let id = run.log.lazy.compactMap(\.uploadId).first ?? "none"
        print("S3 NoSuchUpload to Complete: \(run.outcome.stderr)")
        XCTAssertEqual(run.outcome.status, ExitStatus.httpError.rawValue, run.outcome.stderr)
        XCTAssertEqual(run.outcome.stderr.split(separator: "\n").count, 1, run.outcome.stderr)
        for mention in ["NoSuchUpload", "upload \(id)", "CompleteMultipartUpload"] {
            XCTAssertTrue(run.outcome.stderr.contains(mention), "'\(mention)' not in \(run.outcome.stderr)")
        }
        XCTAssertEqual(run.log.compactMap(\.partNumber).sorted(), [1, 2, 3], "\(run.log)")
        XCTAssertEqual(run.log.filter(\.isComplete).map(\.answered), [404], "\(run.log)")
        XCTAssertFalse(run.log.contains { $0.method == "DELETE" }, "\(run.log)")
        XCTAssertEqual(try journalEntries(run.journal), [])
    }

    /// Every output of a run (stdout, stderr, the JSON report, the journal and its WAL) searched byte for byte for
    /// each secret: none may hold it.
    private func assertNoSecret(_ secrets: [String], in outcome: ProcessRunner.Outcome, report: String, journal: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        let outputs = [("stdout", Data(outcome.stdout.utf8)), ("stderr", Data(outcome.stderr.utf8))]
            + [report, journal, journal + "-wal"].map { ($0, (try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data()) }
        XCTAssertFalse(outputs[2].1.isEmpty, "no report", file: file, line: line)
        for (name, bytes) in outputs {
            for secret in secrets + ["Signature=", "Credential="] {
                XCTAssertNil(bytes.range(of: Data(secret.utf8)), "\(name) holds '\(secret.prefix(4))…'", file: file, line: line)
            }
        }
    }

    /// Credentials moto (checking signatures and session tokens) refuses, each one line naming S3's code and what to
    /// check, exit 4, and no key, secret, token or signature in any output: a wrong secret (SignatureDoesNotMatch), a
    /// wrong session token of an assumed role's credentials from aws-cli's variables (moto's InvalidToken; aws-cli
    /// with that token is refused too), and a token that expires mid-run (the relay's 400 ExpiredToken, as S3 answers,
    /// to part 2: moto keeps no expiry): part 2 is PUT once, the upload aborted (the relay's log has the DELETE after
    /// the refusal, aws-cli lists no open upload).
    func testRefusedCredentialsAreOneLineAndReachNoOutput() throws {
        let (server, user) = try server()
        let session = try server.makeSessionCredentials(user: user)
        let token = try XCTUnwrap(session.token)
        let path = try file("creds.bin", bytes: 9 << 20, seed: 23)
        let wrongToken = String(token.dropLast(4)) + "AAAA"
        let oracle = try server.aws(["s3api", "list-objects-v2", "--bucket", Self.bucket],
                                    credentials: .init(key: session.key, secret: session.secret, token: wrongToken))
        XCTAssertNotEqual(oracle.status, 0)
        XCTAssertTrue(oracle.stderr.contains("InvalidToken"), oracle.stderr)
        let keys = ["AWS_ACCESS_KEY_ID=\(session.key)", "AWS_SECRET_ACCESS_KEY=\(session.secret)"]
        for (name, credentials, environment, code) in [
            ("secret", ["-u", "\(user.key):not-the-secret"], [String](), "SignatureDoesNotMatch"),
            ("token", [], keys + ["AWS_SESSION_TOKEN=\(wrongToken)"], "InvalidToken"),
        ] {
            let report = "\(directory)/\(name).json"
            let journal = "\(directory)/\(name).sqlite"
            let outcome = try wirelens(["upload", path, "s3://\(Self.bucket)/\(name).bin", "--endpoint-url",
                                        server.endpoint, "-q", "--format", "json", "--report", report,
                                        "--journal", journal] + credentials, environment: environment)
            XCTAssertEqual(outcome.status, ExitStatus.httpError.rawValue, "\(name): \(outcome.stderr)")
            print("S3 refused \(name): \(outcome.stderr)")
            XCTAssertEqual(outcome.stderr.split(separator: "\n").count, 1, outcome.stderr)
            for mention in [code, "the credentials were refused", "AWS_SESSION_TOKEN"] {
                XCTAssertTrue(outcome.stderr.contains(mention), "'\(mention)' not in \(outcome.stderr)")
            }
            assertNoSecret([user.key, user.secret, "not-the-secret", session.key, session.secret, token, wrongToken],
                           in: outcome, report: report, journal: journal)
        }
        XCTAssertEqual(try openUploads(server, user), [])

        let environment = keys + ["AWS_SESSION_TOKEN=\(token)", "AWS_DEFAULT_REGION=\(MotoServer.credentials.region)"]
        let run = try refused((part: 2, status: 400, code: "ExpiredToken"), name: "expired", on: (server, user),
                              environment: environment)
        print("S3 ExpiredToken to part 2: \(run.outcome.stderr)")
        XCTAssertEqual(run.outcome.status, ExitStatus.httpError.rawValue, run.outcome.stderr)
        XCTAssertEqual(run.outcome.stderr.split(separator: "\n").count, 1, run.outcome.stderr)
        for mention in ["ExpiredToken", "part 2", "the credentials were refused"] {
            XCTAssertTrue(run.outcome.stderr.contains(mention), "'\(mention)' not in \(run.outcome.stderr)")
        }
        XCTAssertEqual(run.log.filter { $0.partNumber == 2 }.map(\.answered), [400], "\(run.log)")
        let refusal = try XCTUnwrap(run.log.first { $0.answered == 400 })
        XCTAssertTrue(run.log.contains { $0.method == "DELETE" && $0.t > refusal.t && $0.answered == nil }, "\(run.log)")
        XCTAssertEqual(try openUploads(server, user), [])
        assertNoSecret([session.key, session.secret, token], in: run.outcome, report: run.report, journal: run.journal)
    }

    /// `--preset oss-ios` to s3://: the OSS iOS SDK's 256 KiB parts are below S3's 5 MiB minimum, so the parts are
    /// raised to 5 MiB, said in one line on stderr (and in the report's notes), the SDK's 5 in flight and 3 retries
    /// kept. The oracle: head-object's ETag of the 12 MiB object is the one Python's hashlib computes for the file cut
    /// in 5 MiB parts (the MD5 of the parts' MD5s, `-3`), so moto received three parts of 5, 5 and 2 MiB.
    func testOssIosPresetRaisesPartsToS3sMinimum() throws {
        let (server, user) = try server()
        let path = try file("oss.bin", bytes: 12 << 20, seed: 25)
        let reportPath = "\(directory)/oss.json"
        let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/oss.bin", "--endpoint-url", server.endpoint,
                                          "-u", "\(user.key):\(user.secret)", "--preset", "oss-ios", "--no-journal",
                                          "--format", "json", "--report", reportPath], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let warnings = outcome.stderr.split(separator: "\n").filter { $0.contains("5 MiB part minimum") }
        XCTAssertEqual(warnings.count, 1, outcome.stderr)
        print("S3 oss-ios preset: \(warnings.first ?? "no warning")")
        XCTAssertTrue(warnings.first?.contains("--preset oss-ios: its 256.0 KiB parts") == true, outcome.stderr)
        let expected = try ProcessRunner.run("/usr/bin/python3", ["-c", """
            import hashlib, sys
            data = open(sys.argv[1], "rb").read()
            parts = [data[i:i + (5 << 20)] for i in range(0, len(data), 5 << 20)]
            print(hashlib.md5(b"".join(hashlib.md5(p).digest() for p in parts)).hexdigest() + "-%d" % len(parts))
            """, path], timeout: 60)
        XCTAssertEqual(expected.status, 0, expected.stderr)
        let served = try head(server, user, key: "oss.bin")
        XCTAssertEqual(served.etag, expected.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertTrue(served.etag.hasSuffix("-3"), served.etag)
        let (_, upload) = try report(reportPath)
        XCTAssertEqual(upload["parallel"] as? Int, 5)
        XCTAssertEqual(upload["maxRetries"] as? Int, 3)
        XCTAssertTrue((upload["notes"] as? [String] ?? []).contains { $0.contains("5 MiB part minimum") }, "\(upload)")
    }

    /// Keys with spaces and non-ASCII letters through `wirelens upload`, as one PutObject and as a multipart upload,
    /// to moto not checking signatures (its check refuses non-ASCII keys even from aws-cli): aws-cli's head-object
    /// `--key` finds each under the key as given, the PutObject's ETag is the file's md5sum, and `aws s3 cp` of the
    /// multipart one back equals the file (cmp).
    func testKeysWithSpacesAndUnicodeAreStoredUnderThatKey() throws {
        let server = try MotoServer()
        let user = MotoServer.KeyPair(key: MotoServer.credentials.key, secret: MotoServer.credentials.secret)
        try server.createBucket(Self.bucket)
        for (index, (key, size)) in [("日本/データ é 1.bin", 300_011), ("dir/a file ü+ß (2).bin", 9 << 20)].enumerated() {
            let path = try file("unicode-\(index).bin", bytes: size, seed: UInt64(50 + index))
            let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/\(key)", "--endpoint-url", server.endpoint,
                                              "-u", "\(user.key):\(user.secret)", "-q", "--no-journal"], timeout: 120)
            XCTAssertEqual(outcome.status, 0, "\(key): \(outcome.stderr)")
            let served = try head(server, user, key: key)
            XCTAssertEqual(served.bytes, size, key)
            if size < 8 << 20 {
                let sum = try ProcessRunner.run("/usr/bin/md5sum", [path], timeout: 30)
                XCTAssertEqual(served.etag, String(sum.stdout.prefix(32)), key)
            } else {
                XCTAssertTrue(served.etag.hasSuffix("-2"), "\(key): \(served.etag)")
                try assertCopyBack(server, user, key: key, equals: path)
            }
        }
    }

    /// `--addressing-style virtual`: the bucket goes in the host (`BUCKET.s3.wirelens.test`, sent to moto on loopback
    /// by `--resolve`), the key alone in the path. The relay's log (scripts/s3-fault-proxy.py faulting nothing) shows
    /// every request's target as `/KEY?…`, without the bucket, and moto, checking signatures, took them as the
    /// bucket's: aws-cli's head-object (path-style) finds the object with a `-2` ETag, and `aws s3 cp` back is the
    /// file. An endpoint without a host name to prefix and an unknown style are one-line usage errors (exit 2).
    func testVirtualHostedAddressingPutsTheBucketInTheHost() throws {
        let (server, user) = try server()
        let relay = try S3FaultProxy(upstream: server.port, faults: [], logPath: "\(directory)/virtual.jsonl")
        let path = try file("virtual.bin", bytes: 9 << 20, seed: 26)
        let host = "s3.wirelens.test"
        let outcome = try CLIHarness.run(["upload", path, "s3://\(Self.bucket)/dir/virtual file.bin", "--endpoint-url",
                                          "http://\(host):\(relay.port)", "--addressing-style", "virtual",
                                          "--resolve", "\(Self.bucket).\(host):\(relay.port):127.0.0.1",
                                          "-u", "\(user.key):\(user.secret)", "-q", "--no-journal"], timeout: 120)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let targets = try relay.requests().map(\.target)
        XCTAssertEqual(targets.count, 4, "\(targets)")
        XCTAssertTrue(targets.allSatisfy { $0.hasPrefix("/dir/virtual%20file.bin?") }, "\(targets)")
        let served = try head(server, user, key: "dir/virtual file.bin")
        XCTAssertTrue(served.etag.hasSuffix("-2"), served.etag)
        try assertCopyBack(server, user, key: "dir/virtual file.bin", equals: path)
        for (endpoint, style, mention) in [(server.endpoint, "virtual", "host name"), ("http://\(host):9", "dns", "path or virtual")] {
            try CLIHarness.assertFails(["upload", path, "s3://\(Self.bucket)/k.bin", "--endpoint-url", endpoint,
                                        "--addressing-style", style, "-u", "a:b"], code: .usage, mention: mention)
        }
    }
}
