import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--aws-sigv4` signs every request with libcurl's SigV4, as curl's, with `-u KEY:SECRET` or aws-cli's environment
/// variables. The oracles: moto checking signatures (its auth mode, `MotoServer(checkingSignatures:)`) serves an
/// object `aws s3 cp` put there to a signed download, byte for byte as the file (`cmp`), and refuses one signed with
/// a wrong secret or, with temporary (STS) credentials, without their token (403, as aws-cli gets for a wrong
/// secret); and a byte search of every output (JSON, HAR and text reports, `-w`, `-v`) for the key, the secret, the
/// token and a signature.
final class AWSSigV4Tests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("sigv4")
    private static let bucket = "wirelens-signed"
    private static let provider = "aws:amz:\(MotoServer.credentials.region):s3"

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// moto checking signatures, a user of its IAM allowed everything, and `dir/object.bin` put by `aws s3 cp`.
    private func signedServer() throws -> (server: MotoServer, user: MotoServer.KeyPair, file: String, url: String) {
        let server = try MotoServer(checkingSignatures: true)
        let user = try server.makeUser()
        let made = try server.aws(["s3api", "create-bucket", "--bucket", Self.bucket], credentials: user)
        XCTAssertEqual(made.status, 0, made.stderr)
        let file = "\(directory)/object.bin"
        try SplitMix64.writeFile(file, bytes: 300_001, seed: 41)
        let copy = try server.aws(["s3", "cp", file, "s3://\(Self.bucket)/dir/object.bin", "--only-show-errors"],
                                  credentials: user, timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        return (server, user, file, server.url(bucket: Self.bucket, key: "dir/object.bin"))
    }

    /// `cmp` of two files: true when their bytes are the same.
    private func same(_ a: String, _ b: String) throws -> Bool {
        try ProcessRunner.run("/usr/bin/cmp", ["-s", a, b], timeout: 30).status == 0
    }

    /// `wirelens ARGUMENTS` with `environment` set and every AWS variable of the test's own environment unset.
    private func wirelens(_ arguments: [String], environment: [String] = []) throws -> ProcessRunner.Outcome {
        let unset = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                     "AWS_DEFAULT_REGION"].flatMap { ["-u", $0] }
        return try ProcessRunner.run("/usr/bin/env", unset + environment + [WirelensCLI.path] + arguments, timeout: 90)
    }

    /// A download signed with the user's key pair comes back as the file; signed with a wrong secret, moto refuses it
    /// (403, exit 4), as it refuses aws-cli with that secret.
    func testSignedDownloadFromMotoCheckingSignatures() throws {
        let (server, user, file, url) = try signedServer()
        let back = "\(directory)/back.bin"
        let signed = try wirelens(["download", url, "-o", back, "-q", "--aws-sigv4", Self.provider,
                                   "-u", "\(user.key):\(user.secret)"])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertTrue(try same(back, file))

        let oracle = try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", "dir/object.bin"],
                                    credentials: .init(key: user.key, secret: "not-the-secret"))
        XCTAssertNotEqual(oracle.status, 0)
        XCTAssertTrue(oracle.stderr.contains("403"), oracle.stderr)
        let report = "\(directory)/wrong.json"
        let refused = try wirelens(["download", url, "-o", "\(directory)/wrong.bin", "-q", "--format", "json",
                                    "--report", report, "--aws-sigv4", Self.provider, "-u", "\(user.key):not-the-secret"])
        XCTAssertEqual(refused.status, ExitStatus.httpError.rawValue, refused.stderr)
        let (transaction, _) = try CLIHarness.firstTransaction(ofReport: report)
        XCTAssertEqual(transaction["statusCode"] as? Int, 403, "\(transaction)")
    }

    /// Temporary credentials (an assumed role's key pair and session token) from aws-cli's variables: the signed
    /// download is served by moto checking signatures and tokens (and refused
    /// without the token), and no report (JSON, HAR, text), `-w` line or `-v` text of a signed probe holds the key,
    /// the secret, the token or the signature, while `-v` shows the Authorization and token headers went, masked.
    func testEnvironmentCredentialsReachNoOutput() throws {
        let (server, user, file, url) = try signedServer()
        let session = try server.makeSessionCredentials(user: user)
        let token = try XCTUnwrap(session.token)
        let keys = ["AWS_ACCESS_KEY_ID=\(session.key)", "AWS_SECRET_ACCESS_KEY=\(session.secret)",
                    "AWS_DEFAULT_REGION=\(MotoServer.credentials.region)"]
        let environment = keys + ["AWS_SESSION_TOKEN=\(token)"]
        let back = "\(directory)/env.bin"
        let download = try wirelens(["download", url, "-o", back, "-q", "--aws-sigv4", Self.provider],
                                    environment: environment)
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertTrue(try same(back, file))
        let tokenless = try wirelens(["download", url, "-o", "\(directory)/tokenless.bin", "-q", "--aws-sigv4",
                                      Self.provider], environment: keys)
        XCTAssertEqual(tokenless.status, ExitStatus.httpError.rawValue, tokenless.stderr)

        for format in ["json", "har", "text"] {
            let report = "\(directory)/probe.\(format)"
            let outcome = try wirelens(["probe", url, "--aws-sigv4", Self.provider, "--format", format, "--report", report,
                                        "--include-headers", "-v", "-w", "%{http_code} %{url_effective} %{errormsg}\n"],
                                       environment: environment)
            XCTAssertEqual(outcome.status, 0, "\(format): \(outcome.stderr)")
            XCTAssertTrue(outcome.stdout.hasPrefix("200 "), "\(format): \(outcome.stdout)")
            let saved = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            XCTAssertFalse(saved.isEmpty, "\(format): no report")
            let all = outcome.stdout + outcome.stderr + saved
            for secret in [user.key, user.secret, token, "Signature=", "Credential="] {
                XCTAssertFalse(all.contains(secret), "\(format) output holds '\(secret.prefix(4))…'")
            }
            XCTAssertTrue(outcome.stderr.contains("> Authorization: [REDACTED]"), outcome.stderr)
            XCTAssertTrue(outcome.stderr.lowercased().contains("> x-amz-security-token: [redacted]"), outcome.stderr)
        }
    }

    /// Bad input: a provider curl would not take, `-u` without a secret, and no key pair at all, each a one-line
    /// usage error (exit 2) naming what to give.
    func testBadSigningInputIsOneLineUsageError() throws {
        let url = "http://127.0.0.1:9/b/k"
        for (arguments, mention) in [(["--aws-sigv4", "aws::us-east-1"], "--aws-sigv4 'aws::us-east-1'"),
                                     (["--aws-sigv4", "aws:amz:us east:s3"], "provider1[:provider2"),
                                     (["--aws-sigv4", Self.provider, "-u", "AKIAONLY"], "-u KEY:SECRET"),
                                     (["--aws-sigv4", Self.provider], "AWS_ACCESS_KEY_ID")] {
            let outcome = try wirelens(["probe", url] + arguments)
            XCTAssertEqual(outcome.status, ExitStatus.usage.rawValue, "\(arguments): \(outcome.stderr)")
            let lines = outcome.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains(mention), "'\(mention)' not in \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.contains("AKIAONLY"), outcome.stderr)
        }
    }
}
