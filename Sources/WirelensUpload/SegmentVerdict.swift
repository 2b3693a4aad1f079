import WirelensCore
import WirelensWire

/// How one attempt at a segment ended, for the upload's queue: accepted, worth a retry, or final.
package enum SegmentVerdict: Sendable, Equatable {
    case accepted
    /// The attempt was cancelled (the run is stopping).
    case cancelled
    /// A transient transport failure or a retryable status (`RetryPolicy.retryableStatuses`): worth another try.
    case retryable(String)
    /// An answer no retry will change (any other 4xx or 5xx, or not the segment protocol): the upload stops.
    case fatal(String)

    /// Judges a finished attempt of `segment` from its task record and the answer's body (kept only with the
    /// segment protocol, whose answer must carry the part's offset and length as JSON).
    package static func judge(_ record: TaskRecord, body: [UInt8]?, segment: Segment, plan: UploadPlan) -> SegmentVerdict {
        let url = record.url
        if let error = record.error, error.errorClass != .http {
            return error.errorClass == .cancelled ? .cancelled : .retryable("\(error.errorClass.rawValue): \(error.message)")
        }
        guard let status = record.statusCode else { return .retryable("no answer") }
        // S3 says why in an error document (SlowDown, NoSuchUpload, BadDigest…).
        let answer = plan.s3Parts ? body.flatMap(S3ErrorAnswer.init(xml:)) : nil
        let said = answer.map { " (\($0.describedWithHint))" } ?? ""
        if RetryPolicy.isRetryable(status: status) { return .retryable("HTTP \(status)\(said)") }
        if (400..<600).contains(status) {
            if plan.segmentProtocol, [404, 405, 501].contains(status) {
                return .fatal("\(url) answered HTTP \(status): the server has no segment API there (PUT URL/part/{index} "
                              + "with Content-Range); for other servers give --part-url TEMPLATE")
            }
            let range = plan.sendsContentRange ? " (Content-Range \(segment.contentRange(total: plan.fileSize)))" : ""
            let what = plan.s3Parts ? "part \(segment.index + 1)" : "segment \(segment.index)"
            return .fatal("\(url) answered HTTP \(status)\(said) to \(what)\(range); a retry would not change that")
        }
        guard (200..<300).contains(status) else { return .fatal("\(url) answered HTTP \(status) to segment \(segment.index)") }
        if plan.segmentProtocol {
            let answer = body.flatMap(PartAnswer.decode)
            guard answer?.offset == segment.offset, answer?.length == segment.length else {
                return .fatal("\(url) answered HTTP \(status) without the segment protocol's JSON (offset \(segment.offset), "
                              + "length \(segment.length)): not a segment API; for other servers give --part-url TEMPLATE")
            }
        }
        return .accepted
    }
}
