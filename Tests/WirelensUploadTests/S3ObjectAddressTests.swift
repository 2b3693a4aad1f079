import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensUpload

/// `s3://` destinations and their URLs, against moto and two independent encoders: an object aws-cli put under a key
/// with spaces and non-ASCII characters comes back from its path-style URL through curl's own SigV4 signer, the
/// encoding is botocore's (`botocore.utils.percent_encode` over the key's segments, as it builds S3 paths), and a
/// virtual-hosted URL is the one botocore's client builds.
final class S3ObjectAddressTests: XCTestCase {
    private static let awkwardKeys = ["dir/a file é+ü.bin", "sub dir/~x_y-z.(1)*!'&=;,$@:?#[]", "日本/データ 1"]

    func testKeysWithSpacesAndUnicodeFetchThroughCurlSigV4() throws {
        let server = try MotoServer()
        try server.createBucket("wirelens-keys")
        let directory = WirelensCLI.temporaryPath("s3keys")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credentials = MotoServer.credentials
        for (index, key) in Self.awkwardKeys.enumerated() {
            let body = "\(directory)/\(index).txt"
            try Data("object \(index) under \(key)\n".utf8).write(to: URL(fileURLWithPath: body))
            let put = try server.aws(["s3api", "put-object", "--bucket", "wirelens-keys", "--key", key, "--body", body])
            XCTAssertEqual(put.status, 0, put.stderr)

            let address = try S3ObjectAddress("s3://wirelens-keys/\(key)")
            XCTAssertEqual(address.key, key)
            let fetch = try ProcessRunner.run("/usr/bin/curl", [
                "-sS", "-f", "--max-time", "30", "--aws-sigv4", "aws:amz:\(credentials.region):s3",
                "-u", "\(credentials.key):\(credentials.secret)", address.url(endpoint: server.endpoint + "/"),
            ], timeout: 60)
            XCTAssertEqual(fetch.status, 0, "\(key): \(fetch.stderr)")
            XCTAssertEqual(fetch.stdout, "object \(index) under \(key)\n")
        }
    }

    func testEncodingIsBotocores() throws {
        let keys = Self.awkwardKeys + ["plain/key.bin", "%41 already"]
        let list = String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self)
        let outcome = try ProcessRunner.run("\(MotoServer.venv)/bin/python", ["-c", """
            import json, sys
            from botocore.utils import percent_encode
            keys = json.loads(sys.argv[1])
            print(json.dumps(["/".join(percent_encode(s, safe="-_.~") for s in k.split("/")) for k in keys]))
            """, list], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let theirs = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String])
        XCTAssertEqual(keys.map(S3ObjectAddress.encode), theirs)
    }

    /// Virtual-hosted URLs are botocore's: the URL its client (`addressing_style: virtual`) presigns a PutObject at,
    /// the query taken off, for each key on an OSS-style endpoint and on one with a port and a trailing slash.
    func testVirtualHostedURLsAreBotocores() throws {
        let endpoints = ["https://oss-cn-hangzhou.aliyuncs.com", "http://s3.wirelens.test:9000/"]
        let keys = Self.awkwardKeys + ["plain/key.bin"]
        let list = String(decoding: try JSONSerialization.data(withJSONObject: [endpoints, keys]), as: UTF8.self)
        let outcome = try ProcessRunner.run("\(MotoServer.venv)/bin/python", ["-c", """
            import json, sys
            import botocore.session
            from botocore.config import Config
            endpoints, keys = json.loads(sys.argv[1])
            urls = []
            for endpoint in endpoints:
                client = botocore.session.get_session().create_client(
                    "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="a",
                    aws_secret_access_key="b", config=Config(s3={"addressing_style": "virtual"}))
                for key in keys:
                    url = client.generate_presigned_url("put_object", Params={"Bucket": "wirelens-keys", "Key": key})
                    urls.append(url.split("?")[0])
            print(json.dumps(urls))
            """, list], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let theirs = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String])
        let ours = try endpoints.flatMap { endpoint in
            try keys.map { try S3ObjectAddress("s3://wirelens-keys/\($0)").url(endpoint: endpoint, virtualHosted: true) }
        }
        XCTAssertEqual(ours, theirs)
    }

    func testRefusedAddresses() {
        let refused: [(String, S3AddressError)] = [
            ("https://bucket/key", .notS3("https://bucket/key")),
            ("s3://wirelens-keys", .noKey("s3://wirelens-keys")),
            ("s3://wirelens-keys/", .noKey("s3://wirelens-keys/")),
        ] + ["ab", "Upper", "-lead", "trail.", "under_score", String(repeating: "a", count: 64)].map {
            ("s3://\($0)/k", .badBucket($0))
        }
        for (text, error) in refused {
            XCTAssertThrowsError(try S3ObjectAddress(text)) { XCTAssertEqual($0 as? S3AddressError, error, text) }
        }
    }
}
