import Foundation
import WirelensDigest
import WirelensTestSupport
import XCTest
@testable import WirelensUpload

/// The S3 multipart protocol's documents read and written by Wirelens, against moto's (`MotoServer`): each answer
/// is one moto gave to curl in the test (curl signing with `--aws-sigv4`), checked against what aws-cli's s3api
/// reads from the same server; the CompleteMultipartUpload body is sent by curl and judged by moto, whose object's
/// ETag is checked against md5 of the file's parts.
final class S3AnswerTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("s3answer")
    private static let bucket = "wirelens-answers"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// curl, signed, with `arguments` before the URL; returns its status, the answer's body and its HTTP status.
    private func curl(_ server: MotoServer, _ arguments: [String], _ url: String,
                      file: StaticString = #filePath, line: UInt = #line) throws -> (body: [UInt8], http: Int) {
        let out = "\(directory)/answer-\(UUID().uuidString)"
        let credentials = MotoServer.credentials
        let outcome = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "60", "-o", out, "-w", "%{http_code}",
                                                             "--aws-sigv4", "aws:amz:\(credentials.region):s3",
                                                             "-u", "\(credentials.key):\(credentials.secret)"]
                                            + arguments + [url], timeout: 90)
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        let body = (try? Data(contentsOf: URL(fileURLWithPath: out))).map { [UInt8]($0) } ?? []
        unlink(out)
        return (body, Int(outcome.stdout) ?? 0)
    }

    private func json(_ outcome: ProcessRunner.Outcome, file: StaticString = #filePath,
                      line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(outcome.status, 0, outcome.stderr, file: file, line: line)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                             file: file, line: line)
    }

    private func file(_ name: String, bytes count: Int, seed: UInt64) throws -> String {
        let path = "\(directory)/\(name)"
        try SplitMix64.writeFile(path, bytes: count, seed: seed)
        return path
    }

    /// Create (curl) → the upload id aws-cli lists; two parts (aws-cli) → ListParts (curl) with aws-cli's ETags and
    /// sizes; Complete with `S3CompleteRequest`'s body (curl) → moto's ETag, which head-object (aws-cli) serves and
    /// `S3ETag` of the parts' md5 predicts.
    func testMultipartDocumentsAgainstMoto() throws {
        let server = try MotoServer()
        try server.createBucket(Self.bucket)
        let key = "dir/a file é.bin"
        let url = server.url(bucket: Self.bucket, key: S3ObjectAddress.encode(key))

        let created = try curl(server, ["-X", "POST"], url + "?uploads=")
        XCTAssertEqual(created.http, 200, String(decoding: created.body, as: UTF8.self))
        let initiate = try S3InitiateAnswer(xml: created.body)
        XCTAssertEqual(initiate.bucket, Self.bucket)
        XCTAssertEqual(initiate.key, key)
        let listed = try json(try server.aws(["s3api", "list-multipart-uploads", "--bucket", Self.bucket]))
        let uploads = try XCTUnwrap(listed["Uploads"] as? [[String: Any]], "\(listed)")
        XCTAssertEqual(uploads.compactMap { $0["UploadId"] as? String }, [initiate.uploadId])

        let first = try file("part1", bytes: 5 << 20, seed: 1)
        let second = try file("part2", bytes: 1_003, seed: 2)
        var served: [String] = []
        for (number, path) in [(1, first), (2, second)] {
            let part = try json(try server.aws(["s3api", "upload-part", "--bucket", Self.bucket, "--key", key,
                                                "--part-number", "\(number)", "--upload-id", initiate.uploadId,
                                                "--body", path], timeout: 120))
            served.append(try XCTUnwrap(part["ETag"] as? String, "\(part)"))
        }

        let id = S3ObjectAddress.encode(initiate.uploadId)
        let list = try curl(server, [], url + "?uploadId=\(id)")
        XCTAssertEqual(list.http, 200, String(decoding: list.body, as: UTF8.self))
        let parts = try S3ListPartsAnswer(xml: list.body)
        XCTAssertEqual(parts.uploadId, initiate.uploadId)
        XCTAssertFalse(parts.isTruncated)
        XCTAssertEqual(parts.parts.map(\.number), [1, 2])
        XCTAssertEqual(parts.parts.map(\.etag), served.map { S3ETag(served: $0) })
        XCTAssertEqual(parts.parts.map(\.size), [5 << 20, 1_003])
        let md5s = try [first, second].map { try MD5Digest.bytes(ofFile: $0) }
        XCTAssertEqual(parts.parts.map(\.etag), md5s.map { S3ETag(singleMD5: $0) })

        // Given out of order: the body names them in part order, as S3 requires.
        let request = S3CompleteRequest(parts: parts.parts.reversed().map { .init(number: $0.number, etag: $0.etag) })
        let body = "\(directory)/complete.xml"
        try request.body.write(toFile: body, atomically: true, encoding: .utf8)
        let completed = try curl(server, ["-X", "POST", "--data-binary", "@\(body)", "-H", "Content-Type: application/xml"],
                                 url + "?uploadId=\(id)")
        XCTAssertEqual(completed.http, 200, String(decoding: completed.body, as: UTF8.self))
        XCTAssertNil(S3ErrorAnswer(xml: completed.body))
        let answer = try S3CompleteAnswer(xml: completed.body)
        XCTAssertEqual(answer.etag, S3ETag(partMD5s: md5s))
        XCTAssertEqual(answer.key, key)
        let head = try json(try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", key]))
        XCTAssertEqual(S3ETag(served: try XCTUnwrap(head["ETag"] as? String)), answer.etag)
        XCTAssertEqual(head["ContentLength"] as? Int, (5 << 20) + 1_003)
    }

    /// moto's error documents: a missing bucket, a missing key, an upload id it does not know; each code is the
    /// one aws-cli names for the same request.
    func testErrorDocumentsAgainstMoto() throws {
        let server = try MotoServer()
        try server.createBucket(Self.bucket)
        let cases: [(curl: [String], url: String, aws: [String])] = [
            ([], server.url(bucket: "wirelens-absent", key: "k"),
             ["s3api", "get-object", "--bucket", "wirelens-absent", "--key", "k", "\(directory)/out"]),
            ([], server.url(bucket: Self.bucket, key: "absent"),
             ["s3api", "get-object", "--bucket", Self.bucket, "--key", "absent", "\(directory)/out"]),
            ([], server.url(bucket: Self.bucket, key: "k") + "?uploadId=wirelens-unknown",
             ["s3api", "list-parts", "--bucket", Self.bucket, "--key", "k", "--upload-id", "wirelens-unknown"]),
        ]
        for item in cases {
            let answer = try curl(server, item.curl, item.url)
            XCTAssertEqual(answer.http, 404, String(decoding: answer.body, as: UTF8.self))
            let error = try XCTUnwrap(S3ErrorAnswer(xml: answer.body), String(decoding: answer.body, as: UTF8.self))
            let oracle = try server.aws(item.aws)
            XCTAssertNotEqual(oracle.status, 0)
            XCTAssertTrue(oracle.stderr.contains("(\(error.code))"), "\(error.code) not in: \(oracle.stderr)")
            XCTAssertFalse(error.isRetryable)
            XCTAssertFalse(error.description.contains("\n"))
        }
    }

    /// What the reader must cope with beyond moto's bytes: entities and character references, CDATA, namespace
    /// prefixes, attributes holding '>', comments; and what it refuses with an error, never a crash.
    func testReaderEdges() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- before --><s3:ListPartsResult xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/" a="x>y">
              <s3:UploadId>id&amp;&#x2F;&#61;</s3:UploadId><IsTruncated>true</IsTruncated>
              <NextPartNumberMarker>7</NextPartNumberMarker>
              <Part><PartNumber>7</PartNumber><ETag><![CDATA["abc"]]></ETag><Size>5</Size></Part>
            </s3:ListPartsResult>
            """
        let answer = try S3ListPartsAnswer(xml: Array(text.utf8))
        XCTAssertEqual(answer.uploadId, "id&/=")
        XCTAssertTrue(answer.isTruncated)
        XCTAssertEqual(answer.nextPartNumberMarker, 7)
        XCTAssertEqual(answer.parts, [.init(number: 7, etag: S3ETag(served: "\"abc\""), size: 5)])

        for broken in ["", "not xml", "<A><B></A>", "<A>", "<A>&bogus;</A>", "<A></A>tail",
                       String(repeating: "<A>", count: 40) + String(repeating: "</A>", count: 40)] {
            XCTAssertThrowsError(try S3XMLElement.parse(broken), broken)
        }
        XCTAssertThrowsError(try S3InitiateAnswer(xml: Array("<Error><Code>x</Code></Error>".utf8)))
        XCTAssertThrowsError(try S3ListPartsAnswer(xml: Array(
            "<ListPartsResult><Part><PartNumber>0</PartNumber><ETag>e</ETag><Size>1</Size></Part></ListPartsResult>".utf8)))
        XCTAssertNil(S3ErrorAnswer(xml: Array("<ListPartsResult/>".utf8)))

        // Seeded garbage and cut documents: an answer or an error, never a trap.
        var generator = SplitMix64(seed: 32)
        let alphabet = Array("<>/&;#x!-[]?\"' =aZ\n".utf8)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 64)
            let bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            _ = try? S3XMLElement.parse(bytes)
        }
        let whole = Array(text.utf8)
        for cut in 0..<whole.count { _ = try? S3ListPartsAnswer(xml: Array(whole[..<cut])) }
    }
}
