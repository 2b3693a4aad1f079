import Foundation
import WirelensTestSupport
import XCTest

/// The S3 test peer itself (`MotoServer`): moto takes a multipart upload from aws-cli and gives the same bytes to
/// curl's own SigV4 signer. The oracles are sha256sum of the file and of what curl got, and S3's multipart ETag
/// form (`"...-N"`) as aws-cli's head-object reads it.
final class MotoServerTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("moto")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func sha256(_ path: String) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/sha256sum", [path], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return String(outcome.stdout.prefix(64))
    }

    /// A 20 MiB file, sent by `aws s3 cp` in its default 8 MiB parts (3 parts), comes back whole through
    /// `curl --aws-sigv4` signing with the same dummy credentials, and its ETag says 3 parts.
    func testMultipartUploadByAwsCliReadsBackThroughCurlSigV4() throws {
        let server = try MotoServer()
        try server.createBucket("wirelens-peer")
        let file = "\(directory)/object.bin"
        var generator = SplitMix64(seed: 32)
        let words = (0..<(20 << 20) / 8).map { _ in generator.next() }
        try words.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: file))

        let copy = try server.aws(["s3", "cp", file, "s3://wirelens-peer/dir/object.bin", "--only-show-errors"],
                                  timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let head = try server.aws(["s3api", "head-object", "--bucket", "wirelens-peer", "--key", "dir/object.bin"])
        XCTAssertEqual(head.status, 0, head.stderr)
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(head.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(answer["ContentLength"] as? Int, 20 << 20)
        XCTAssertTrue((answer["ETag"] as? String)?.hasSuffix("-3\"") == true, "\(answer)")

        let back = "\(directory)/back.bin"
        let credentials = MotoServer.credentials
        let fetch = try ProcessRunner.run("/usr/bin/curl", [
            "-sS", "-f", "--max-time", "60", "-o", back,
            "--aws-sigv4", "aws:amz:\(credentials.region):s3", "-u", "\(credentials.key):\(credentials.secret)",
            server.url(bucket: "wirelens-peer", key: "dir/object.bin"),
        ], timeout: 90)
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertEqual(try sha256(back), try sha256(file))
    }

    /// A bucket that does not exist is a 404 to aws-cli's head-bucket (a non-zero exit): the peer answers a missing
    /// bucket as S3 does, which the upload's edge-case tests rely on.
    func testMissingBucketIsNotFound() throws {
        let server = try MotoServer()
        let outcome = try server.aws(["s3api", "head-bucket", "--bucket", "wirelens-absent"])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stderr.contains("404") || outcome.stderr.contains("Not Found"), outcome.stderr)
    }
}
