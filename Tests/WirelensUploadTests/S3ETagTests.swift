import Foundation
import WirelensDigest
import WirelensTestSupport
import XCTest
@testable import WirelensUpload

/// The ETags `S3ETag` expects, against the ones moto serves (`MotoServer`) for the same bytes sent by aws-cli, and
/// its Content-MD5 against openssl's MD5 in base64 (moto does not check that header), and md5sum.
final class S3ETagTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("s3etag")

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

    private func servedETag(_ server: MotoServer, key: String) throws -> S3ETag {
        let head = try server.aws(["s3api", "head-object", "--bucket", "wirelens-etag", "--key", key])
        XCTAssertEqual(head.status, 0, head.stderr)
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(head.stdout.utf8)) as? [String: Any])
        return S3ETag(served: try XCTUnwrap(answer["ETag"] as? String, "\(answer)"))
    }

    /// A 20 MiB + 3 file by `aws s3 cp` in its 8 MiB parts (3, the last short): moto's ETag is the MD5 of the
    /// parts' MD5s cut as `S3PartPlan` cuts them, then `-3`; a one-byte change in the last part changes it.
    func testMultipartETagIsMotosForTheSameParts() throws {
        let server = try MotoServer()
        try server.createBucket("wirelens-etag")
        let path = try file("multi.bin", bytes: (20 << 20) + 3, seed: 7)
        let copy = try server.aws(["s3", "cp", path, "s3://wirelens-etag/multi.bin", "--only-show-errors"],
                                  timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr)

        let plan = try S3PartPlan(fileSize: (20 << 20) + 3)
        XCTAssertEqual(plan.partCount, 3)
        let md5s = try (1...plan.partCount).map { number in
            let range = plan.range(ofPart: number)
            return try MD5Digest.bytes(ofFile: path, offset: range.offset, length: range.length)
        }
        let served = try servedETag(server, key: "multi.bin")
        XCTAssertTrue(served.value.hasSuffix("-3"), served.value)
        XCTAssertEqual(S3ETag(partMD5s: md5s), served)
        var changed = md5s
        changed[2] = MD5Digest.bytes(of: [0x00])
        XCTAssertNotEqual(S3ETag(partMD5s: changed), served)
    }

    /// A small PutObject with `--content-md5` from `S3ETag.contentMD5` is accepted, its ETag is the file's md5sum,
    /// and that Content-MD5 is `openssl dgst -md5 -binary | base64` of the file.
    func testPutObjectContentMD5AndETag() throws {
        let server = try MotoServer()
        try server.createBucket("wirelens-etag")
        let path = try file("small.bin", bytes: 100_003, seed: 9)
        let md5 = try MD5Digest.bytes(ofFile: path)
        let put = try server.aws(["s3api", "put-object", "--bucket", "wirelens-etag", "--key", "small.bin",
                                  "--body", path, "--content-md5", S3ETag.contentMD5(md5)])
        XCTAssertEqual(put.status, 0, put.stderr)
        let sum = try ProcessRunner.run("/usr/bin/md5sum", [path], timeout: 30)
        XCTAssertEqual(S3ETag(singleMD5: md5).value, String(sum.stdout.prefix(32)))
        XCTAssertEqual(try servedETag(server, key: "small.bin"), S3ETag(singleMD5: md5))

        let openssl = try ProcessRunner.run("/bin/sh", ["-c", "openssl dgst -md5 -binary < '\(path)' | base64"],
                                            timeout: 30)
        XCTAssertEqual(openssl.status, 0, openssl.stderr)
        XCTAssertEqual(S3ETag.contentMD5(md5), openssl.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
