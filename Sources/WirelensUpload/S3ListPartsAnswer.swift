/// One page of S3's answer to ListParts (`GET /BUCKET/KEY?uploadId=ID`): the parts the server holds of an upload,
/// and where the next page starts when there are more than one page's worth.
package struct S3ListPartsAnswer: Sendable, Equatable {
    /// A part the server holds.
    package struct Part: Sendable, Equatable {
        package var number: Int
        package var etag: S3ETag
        package var size: Int64

        package init(number: Int, etag: S3ETag, size: Int64) {
            self.number = number
            self.etag = etag
            self.size = size
        }
    }

    package var uploadId: String
    package var parts: [Part]
    /// True when more parts follow: ask again from `nextPartNumberMarker`.
    package var isTruncated: Bool
    package var nextPartNumberMarker: Int?

    package init(uploadId: String, parts: [Part], isTruncated: Bool, nextPartNumberMarker: Int?) {
        self.uploadId = uploadId
        self.parts = parts
        self.isTruncated = isTruncated
        self.nextPartNumberMarker = nextPartNumberMarker
    }

    /// Reads a `ListPartsResult`; throws when it is another document or a part lacks a number, ETag or size S3
    /// would send (numbers 1 to 10,000, sizes not negative).
    package init(xml bytes: [UInt8]) throws(S3XMLError) {
        let root = try S3XMLElement.parse(bytes, rootNamed: "ListPartsResult", "ListPartsResponse")
        uploadId = root.value("UploadId") ?? ""
        isTruncated = root.value("IsTruncated")?.lowercased() == "true"
        nextPartNumberMarker = root.value("NextPartNumberMarker").flatMap { Int($0) }
        parts = []
        for element in root.children("Part") {
            let text = try element.required("PartNumber")
            guard let number = Int(text), (1...S3PartPlan.maximumParts).contains(number) else {
                throw S3XMLError(.badValue, at: 0, element: "PartNumber \(text.prefix(20))")
            }
            let etag = try element.required("ETag")
            let sizeText = try element.required("Size")
            guard let size = Int64(sizeText), size >= 0 else {
                throw S3XMLError(.badValue, at: 0, element: "Size \(sizeText.prefix(20))")
            }
            parts.append(Part(number: number, etag: S3ETag(served: etag), size: size))
        }
    }
}
