/// S3's error document (`<Error><Code>NoSuchBucket</Code><Message>…</Message>…</Error>`), which comes with a 4xx or
/// 5xx and, for CompleteMultipartUpload, sometimes with a 200.
package struct S3ErrorAnswer: Sendable, Equatable, CustomStringConvertible {
    /// S3's error code (`NoSuchBucket`, `NoSuchUpload`, `SignatureDoesNotMatch`, `SlowDown`…).
    package var code: String
    package var message: String

    package init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The error a document holds; nil when it is not S3's error document (or not XML).
    package init?(xml bytes: [UInt8]) {
        guard let root = try? S3XMLElement.parse(bytes), root.name == "Error", let code = root.value("Code"),
              !code.isEmpty else { return nil }
        self.code = code
        message = root.value("Message") ?? ""
    }

    /// `Code: message` on one line (S3's messages have none of the request's secrets).
    package var description: String {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.isEmpty ? code : "\(code): \(line)"
    }

    /// Codes S3 documents as worth retrying after a pause: throttling and a server busy or failing.
    package var isRetryable: Bool {
        ["SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "Throttling", "ThrottlingException"]
            .contains(code)
    }

    /// True when the server does not know the multipart upload (aborted, completed or expired): nothing of it is
    /// left there to send parts to, complete or abort.
    package var isNoSuchUpload: Bool { code == "NoSuchUpload" }

    /// `description`, then `; ` and `credentialHint` when there is one (the message's final period dropped).
    package var describedWithHint: String {
        guard let hint = credentialHint else { return description }
        let line = description
        return (line.hasSuffix(".") ? String(line.dropLast()) : line) + "; " + hint
    }

    /// What to do when the code says the request's credentials were refused (a wrong key or secret, a session token
    /// wrong or expired); nil for other codes.
    package var credentialHint: String? {
        let refused = ["SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
                       "TokenRefreshRequired", "InvalidClientTokenId"]
        guard refused.contains(code) else { return nil }
        return "the credentials were refused: check -u KEY:SECRET or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and "
            + "AWS_SESSION_TOKEN (temporary credentials expire: get new ones)"
    }
}
