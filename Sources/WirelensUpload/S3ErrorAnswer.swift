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
}
