/// Which parts of an interrupted multipart upload the server still holds as the file has them, and which must be
/// sent again.
///
/// A listed part is kept when its number is one of the plan's, its size is the plan's for that number and its ETag
/// is the MD5 of the file's bytes there (S3's ETag of a part without server-side encryption by KMS); every other
/// part of the plan is missing and goes again. A part listed twice (pages that overlap) counts once, the last.
package struct S3ResumePlan: Sendable, Equatable {
    /// The parts kept, in part order, with the ETag ListParts gave (for CompleteMultipartUpload) and their MD5.
    package var kept: [SegmentUploader.SentPart]
    /// The part numbers to send, in order.
    package var missing: [Int]
    /// Listed parts of the plan not kept because their size or ETag differ from the file's bytes (sent again).
    package var differing: [Int]

    /// The plan for `parts` from the server's `listed` parts and the MD5s of the file's bytes where they lie
    /// (`localMD5s`, by part number; a listed part without one is sent again).
    package init(parts: S3PartPlan, listed: [S3ListPartsAnswer.Part], localMD5s: [Int: [UInt8]]) {
        var byNumber: [Int: S3ListPartsAnswer.Part] = [:]
        for part in listed where (1...parts.partCount).contains(part.number) {
            byNumber[part.number] = part
        }
        kept = []
        missing = []
        differing = []
        for number in 1...parts.partCount {
            guard let part = byNumber[number] else {
                missing.append(number)
                continue
            }
            if part.size == parts.range(ofPart: number).length, let md5 = localMD5s[number],
               part.etag == S3ETag(singleMD5: md5) {
                kept.append(SegmentUploader.SentPart(number: number, etag: part.etag, md5: md5))
            } else {
                missing.append(number)
                differing.append(number)
            }
        }
    }

    /// The part numbers of `listed` whose size is the plan's for their number: the ones worth an MD5 of the file.
    package static func sizedAsPlanned(_ listed: [S3ListPartsAnswer.Part], parts: S3PartPlan) -> [Int] {
        listed.filter { (1...parts.partCount).contains($0.number) && $0.size == parts.range(ofPart: $0.number).length }
            .map(\.number)
    }
}
