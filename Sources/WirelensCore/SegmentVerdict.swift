import Foundation

/// How one attempt at a segment ended, for the upload's queue: accepted, worth a retry, or final.
public enum SegmentVerdict: Sendable, Equatable {
    case accepted
    /// The attempt was cancelled (the run is stopping).
    case cancelled
    /// A transport failure, 408, 429 or a 5xx other than 501: worth another try.
    case retryable(String)
    /// An answer no retry will change (4xx, 501, or not the segment protocol): the upload stops.
    case fatal(String)

    /// Judges a finished attempt of `segment` from its task record and the answer's body (kept only with the
    /// segment protocol, whose answer must carry the part's offset and length as JSON).
    public static func judge(_ record: TaskRecord, body: [UInt8]?, segment: Segment, plan: UploadPlan) -> SegmentVerdict {
        let url = record.url
        if let error = record.error, error.errorClass != .http {
            return error.errorClass == .cancelled ? .cancelled : .retryable("\(error.errorClass.rawValue): \(error.message)")
        }
        guard let status = record.statusCode else { return .retryable("no answer") }
        // 501 Not Implemented is no passing state: the server does not do this at all.
        if status == 408 || status == 429 || (status >= 500 && status != 501) { return .retryable("HTTP \(status)") }
        if (400..<600).contains(status) {
            if plan.segmentProtocol, [404, 405, 501].contains(status) {
                return .fatal("\(url) answered HTTP \(status): the server has no segment API there (PUT URL/part/{index} "
                              + "with Content-Range); for other servers give --part-url TEMPLATE")
            }
            let range = plan.sendsContentRange ? " (Content-Range \(segment.contentRange(total: plan.fileSize)))" : ""
            return .fatal("\(url) answered HTTP \(status) to segment \(segment.index)\(range); a retry would not change that")
        }
        guard (200..<300).contains(status) else { return .fatal("\(url) answered HTTP \(status) to segment \(segment.index)") }
        if plan.segmentProtocol {
            let object = body.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
            let offset = (object?["offset"] as? NSNumber)?.int64Value
            let length = (object?["length"] as? NSNumber)?.int64Value
            guard offset == segment.offset, length == segment.length else {
                return .fatal("\(url) answered HTTP \(status) without the segment protocol's JSON (offset \(segment.offset), "
                              + "length \(segment.length)): not a segment API; for other servers give --part-url TEMPLATE")
            }
        }
        return .accepted
    }
}
