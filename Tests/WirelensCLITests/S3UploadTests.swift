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
    /// a wrong secret: one line naming SignatureDoesNotMatch, exit 4; s3:// without --endpoint-url and a part under
    /// 5 MiB: one-line usage errors (exit 2).
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
        let aborts = requests.filter { $0.method == "DELETE" && $0.target.contains("uploadId=") }
        XCTAssertEqual(aborts.count, 1, "\(requests)")
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
}
