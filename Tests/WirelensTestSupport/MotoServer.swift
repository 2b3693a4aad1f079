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

    /// An access key pair aws-cli, curl and Wirelens sign with, and the session token of temporary (STS) ones.
    public struct KeyPair: Sendable {
        public var key: String
        public var secret: String
        public var token: String?

        public init(key: String, secret: String, token: String? = nil) {
            self.key = key
            self.secret = secret
            self.token = token
        }
    }

    /// The requests moto serves unchecked when it checks signatures: the three of `makeUser()`.
    public static let unauthenticatedActions = 3

    /// Starts moto_server; throws when the venv is missing or the server does not listen within 30 s. With
    /// `checkingSignatures`, moto (its INITIAL_NO_AUTH_ACTION_COUNT) checks every request's SigV4 signature and its
    /// IAM permissions once `unauthenticatedActions` requests were served: call `makeUser()` first. `settings` are
    /// moto's environment variables (e.g. S3_UPLOAD_PART_MIN_SIZE).
    public init(checkingSignatures: Bool = false, settings: [String: String] = [:]) throws {
        let python = "\(Self.venv)/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              FileManager.default.isExecutableFile(atPath: "\(Self.venv)/bin/aws") else {
            throw TestServerError(message: "\(Self.venv) is missing moto or aws-cli: run scripts/deps.sh")
        }
        let script = TestServers.repositoryRoot.appendingPathComponent("scripts/moto-server.py").path
        let checks = checkingSignatures ? ["INITIAL_NO_AUTH_ACTION_COUNT=\(Self.unauthenticatedActions)"] : []
        let variables = settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        process = try ServerProcess("/usr/bin/env", checks + variables + [python, script])
        port = try process.listeningPort(of: "moto_server", seconds: 30)
    }

    deinit {
        process.kill()
    }

    /// `http://127.0.0.1:PORT`, the `--endpoint-url` of every client.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The path-style URL of an object: `http://127.0.0.1:PORT/BUCKET/KEY` (`key` already URI-encoded).
    public func url(bucket: String, key: String) -> String { "\(endpoint)/\(bucket)/\(key)" }

    /// Runs aws-cli (`aws ARGUMENTS --endpoint-url ENDPOINT`) with `credentials` (default: the dummy ones) and the
    /// region in its environment and nothing from the user's ~/.aws; kills it after `timeout` seconds.
    public func aws(_ arguments: [String], credentials: KeyPair? = nil,
                    timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
        let pair = credentials ?? KeyPair(key: Self.credentials.key, secret: Self.credentials.secret)
        let environment = ["AWS_ACCESS_KEY_ID=\(pair.key)",
                           "AWS_SECRET_ACCESS_KEY=\(pair.secret)",
                           "AWS_DEFAULT_REGION=\(Self.credentials.region)",
                           "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
                           "AWS_EC2_METADATA_DISABLED=true"] + (pair.token.map { ["AWS_SESSION_TOKEN=\($0)"] } ?? [])
        return try ProcessRunner.run("/usr/bin/env", ["-u", "AWS_SESSION_TOKEN", "-u", "AWS_PROFILE"] + environment
                                     + ["\(Self.venv)/bin/aws"] + arguments + ["--endpoint-url", endpoint],
                                     timeout: timeout)
    }

    /// For a server checking signatures: an IAM user allowed every action and a key pair of its, made with the
    /// requests moto serves unchecked (`unauthenticatedActions`); throws with aws-cli's stderr when one fails.
    public func makeUser(_ name: String = "wirelens") throws -> KeyPair {
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        for arguments in [["iam", "create-user", "--user-name", name],
                          ["iam", "put-user-policy", "--user-name", name, "--policy-name", "everything",
                           "--policy-document", policy]] {
            let outcome = try aws(arguments)
            guard outcome.status == 0 else {
                throw TestServerError(message: "aws \(arguments.prefix(2).joined(separator: " ")) failed: \(outcome.stderr)")
            }
        }
        let made = try aws(["iam", "create-access-key", "--user-name", name])
        guard made.status == 0,
              let answer = try? JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any],
              let key = answer["AccessKey"] as? [String: Any],
              let id = key["AccessKeyId"] as? String, let secret = key["SecretAccessKey"] as? String else {
            throw TestServerError(message: "aws iam create-access-key failed: \(made.stderr)")
        }
        return KeyPair(key: id, secret: secret)
    }

    /// For a server checking signatures: temporary credentials (key pair and session token) of a role allowed every
    /// action, which `user` (from `makeUser()`) makes and assumes through moto's IAM and STS.
    public func makeSessionCredentials(user: KeyPair, role: String = "wirelens-role") throws -> KeyPair {
        let trust = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}"#
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        var arn = ""
        for arguments in [["iam", "create-role", "--role-name", role, "--assume-role-policy-document", trust],
                          ["iam", "put-role-policy", "--role-name", role, "--policy-name", "everything",
                           "--policy-document", policy]] {
            let outcome = try aws(arguments, credentials: user)
            guard outcome.status == 0 else {
                throw TestServerError(message: "aws \(arguments.prefix(2).joined(separator: " ")) failed: \(outcome.stderr)")
            }
            if let answer = try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
               let made = answer["Role"] as? [String: Any], let name = made["Arn"] as? String {
                arn = name
            }
        }
        let assumed = try aws(["sts", "assume-role", "--role-arn", arn, "--role-session-name", "wirelens"],
                              credentials: user)
        guard assumed.status == 0,
              let answer = try? JSONSerialization.jsonObject(with: Data(assumed.stdout.utf8)) as? [String: Any],
              let credentials = answer["Credentials"] as? [String: Any],
              let id = credentials["AccessKeyId"] as? String, let secret = credentials["SecretAccessKey"] as? String,
              let token = credentials["SessionToken"] as? String else {
            throw TestServerError(message: "aws sts assume-role failed: \(assumed.stderr)")
        }
        return KeyPair(key: id, secret: secret, token: token)
    }

    /// Makes a bucket with aws-cli (`s3api create-bucket`); throws with aws-cli's stderr when it fails.
    public func createBucket(_ name: String) throws {
        let outcome = try aws(["s3api", "create-bucket", "--bucket", name])
        guard outcome.status == 0 else {
            throw TestServerError(message: "aws s3api create-bucket \(name) failed: \(outcome.stderr)")
        }
    }
}
