/// S3's answer to CreateMultipartUpload (`POST /BUCKET/KEY?uploads`): the `InitiateMultipartUploadResult` that
/// names the upload every later request of it carries.
package struct S3InitiateAnswer: Sendable, Equatable {
    package var bucket: String
    package var key: String
    /// The upload's id, as the server wrote it (opaque; URI-encoded when put in a query).
    package var uploadId: String

    package init(bucket: String, key: String, uploadId: String) {
        self.bucket = bucket
        self.key = key
        self.uploadId = uploadId
    }

    /// Reads the answer's body; throws when it is another document or has no non-empty UploadId.
    package init(xml bytes: [UInt8]) throws(S3XMLError) {
        let root = try S3XMLElement.parse(bytes, rootNamed: "InitiateMultipartUploadResult",
                                          "CreateMultipartUploadResponse")
        uploadId = try root.required("UploadId")
        bucket = root.value("Bucket") ?? ""
        key = root.value("Key") ?? ""
    }
}
