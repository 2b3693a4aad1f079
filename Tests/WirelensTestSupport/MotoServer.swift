import Foundation

/// moto's S3 server on a free loopback port, for one test class: an S3-compatible object store nobody here wrote
/// (multipart uploads, ListParts, ETags as S3 computes them), with aws-cli beside it as the oracle client.
///
/// Both live in the repository's `.venv-s3/`, made by scripts/deps.sh; scripts/moto-server.py ends the server when
/// the test process goes away. moto accepts any credentials unless told otherwise; `credentials` are the dummy ones
/// every request here signs with.
public final class MotoServer {
    /// The dummy access key, secret and region aws-cli and curl sign with.
    public static let credentials = (key: "AKIAWIRELENSTEST", secret: "wirelens-test-secret", region: "us-east-1")

    public let port: Int
    private let process: ServerProcess

    /// The venv's directory (`.venv-s3/` at the repository's root).
    public static var venv: String { TestServers.repositoryRoot.appendingPathComponent(".venv-s3").path }

    /// Starts moto_server; throws when the venv is missing or the server does not listen within 30 s.
    public init() throws {
        let python = "\(Self.venv)/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              FileManager.default.isExecutableFile(atPath: "\(Self.venv)/bin/aws") else {
            throw TestServerError(message: "\(Self.venv) is missing moto or aws-cli: run scripts/deps.sh")
        }
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/moto-server.py").path
        process = try ServerProcess(python, [script])
        port = try process.listeningPort(of: "moto_server", seconds: 30)
    }

    deinit {
        process.kill()
    }

    /// `http://127.0.0.1:PORT`, the `--endpoint-url` of every client.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The path-style URL of an object: `http://127.0.0.1:PORT/BUCKET/KEY` (`key` already URI-encoded).
    public func url(bucket: String, key: String) -> String { "\(endpoint)/\(bucket)/\(key)" }

    /// Runs aws-cli (`aws ARGUMENTS --endpoint-url ENDPOINT`) with the dummy credentials and region in its
    /// environment and nothing from the user's ~/.aws; kills it after `timeout` seconds.
    public func aws(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
        let environment = ["AWS_ACCESS_KEY_ID=\(Self.credentials.key)",
                           "AWS_SECRET_ACCESS_KEY=\(Self.credentials.secret)",
                           "AWS_DEFAULT_REGION=\(Self.credentials.region)",
                           "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
                           "AWS_EC2_METADATA_DISABLED=true"]
        return try ProcessRunner.run("/usr/bin/env", ["-u", "AWS_SESSION_TOKEN", "-u", "AWS_PROFILE"] + environment
                                     + ["\(Self.venv)/bin/aws"] + arguments + ["--endpoint-url", endpoint],
                                     timeout: timeout)
    }

    /// Makes a bucket with aws-cli (`s3api create-bucket`); throws with aws-cli's stderr when it fails.
    public func createBucket(_ name: String) throws {
        let outcome = try aws(["s3api", "create-bucket", "--bucket", name])
        guard outcome.status == 0 else {
            throw TestServerError(message: "aws s3api create-bucket \(name) failed: \(outcome.stderr)")
        }
    }
}
