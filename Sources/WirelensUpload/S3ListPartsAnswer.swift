/// One page of S3's answer to ListParts (`GET /BUCKET/KEY?uploadId=ID`): the parts the server holds of an upload,
/// and where the next page starts when there are more than one page's worth.
public struct S3ListPartsAnswer: Sendable, Equatable {
    /// A part the server holds.
    public struct Part: Sendable, Equatable {
        public var number: Int
        public var etag: S3ETag
        public var size: Int64

        public init(number: Int, etag: S3ETag, size: Int64) {
            self.number = number
            self.etag = etag
            self.size = size
        }
    }

    public var uploadId: String
    public var parts: [Part]
    /// True when more parts follow: ask again from `nextPartNumberMarker`.
    public var isTruncated: Bool
    public var nextPartNumberMarker: Int?

    public init(uploadId: String, parts: [Part], isTruncated: Bool, nextPartNumberMarker: Int?) {
        self.uploadId = uploadId
        self.parts = parts
        self.isTruncated = isTruncated
        self.nextPartNumberMarker = nextPartNumberMarker
    }

    /// Reads a `ListPartsResult`; throws when it is another document or a part lacks a number, ETag or size S3
    /// would send (numbers 1 to 10,000, sizes not negative).
    public init(xml bytes: [UInt8]) throws(S3XMLError) {
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
