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
}
