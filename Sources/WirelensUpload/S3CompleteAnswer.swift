/// S3's answer to CompleteMultipartUpload (`POST /BUCKET/KEY?uploadId=ID`): the `CompleteMultipartUploadResult`
/// with the object's ETag. S3 may answer a 200 whose body is an error document instead (`S3ErrorAnswer`): the
/// caller reads that first.
package struct S3CompleteAnswer: Sendable, Equatable {
    package var bucket: String
    package var key: String
    /// The assembled object's ETag (`…-N` for N parts).
    package var etag: S3ETag

    package init(bucket: String, key: String, etag: S3ETag) {
        self.bucket = bucket
        self.key = key
        self.etag = etag
    }

    /// Reads the answer's body; throws when it is another document or has no ETag.
    package init(xml bytes: [UInt8]) throws(S3XMLError) {
        let root = try S3XMLElement.parse(bytes, rootNamed: "CompleteMultipartUploadResult",
                                          "CompleteMultipartUploadResponse")
        etag = S3ETag(served: try root.required("ETag"))
        bucket = root.value("Bucket") ?? ""
        key = root.value("Key") ?? ""
    }
}
