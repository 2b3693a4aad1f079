import WirelensCore
import WirelensDigest
import WirelensProbe

/// Resuming a multipart upload from its journal entry: ListParts (every page), the parts kept by `S3ResumePlan`,
/// and the cases that start a new upload instead, each said in a note (no entry, the file changed, the server no
/// longer knows the upload id).
extension S3Upload {
    /// Where a multipart run starts: the upload to continue (its id and the parts the server keeps) or none (a new one
    /// is created), the part plan, the notes, the requests made to find out, and whether the run stops there.
    struct ResumePoint {
        var parts: S3PartPlan
        /// The journalled upload continued; nil: create one.
        var uploadId: String?
        var kept: [SegmentUploader.SentPart] = []
        var notes: [String] = []
        var records: [TaskRecord] = []
        /// True when the run goes no further: ListParts failed (`failure`) or the engine was cancelled.
        var stopped = false
        var failure: (String, UploadEnding)?
    }

    /// Finds where the run starts: without `resume` (or a journal) a new upload; else the journal's entry for the file
    /// and object, checked against ListParts.
    func resumePoint() async -> ResumePoint {
        var point = ResumePoint(parts: parts)
        guard resume, let journal, let key = journalKey else { return point }
        let found: UploadJournalEntry?
        do {
            found = try journal.entry(for: key)
        } catch {
            point.notes.append("\(error); starting a new multipart upload")
            return point
        }
        guard let entry = found, let uploadId = entry.remoteUploadId else {
            await startOver(key, &point)
            return point
        }
        if entry.segmentSize != parts.partSize {
            guard let journalled = try? S3PartPlan(fileSize: parts.fileSize, partSize: entry.segmentSize),
                  !journalled.single else {
                point.notes.append("the journalled upload \(uploadId) has parts of \(entry.segmentSize) bytes, which "
                                   + "do not fit this file: starting a new multipart upload")
                return point
            }
            point.parts = journalled
            point.notes.append("resuming upload \(uploadId) at the journal's part size, \(ByteSize.format(entry.segmentSize))")
        }
        let (listing, records) = await listParts(uploadId: uploadId)
        point.records = records
        switch listing {
        case .none:
            point.stopped = true
        case .gone:
            point.notes.append("the server no longer knows upload \(uploadId) (NoSuchUpload: aborted, completed or "
                               + "expired): starting a new multipart upload")
        case .failure(let message, let ending):
            point.stopped = true
            point.failure = (message + "; upload \(uploadId) stays on the server: --resume again, or aws s3api "
                             + "abort-multipart-upload removes it", ending)
        case .listed(let listed):
            var md5s: [Int: [UInt8]] = [:]
            for number in S3ResumePlan.sizedAsPlanned(listed, parts: point.parts) {
                let range = point.parts.range(ofPart: number)
                md5s[number] = try? MD5Digest.bytes(ofFile: filePath, offset: range.offset, length: range.length)
            }
            let plan = S3ResumePlan(parts: point.parts, listed: listed, localMD5s: md5s)
            point.uploadId = uploadId
            point.kept = plan.kept
            if !plan.differing.isEmpty {
                point.notes.append("part\(plan.differing.count == 1 ? "" : "s") "
                                   + plan.differing.map(String.init).joined(separator: ", ")
                                   + " on the server differ from the file's bytes (size or ETag): sent again")
            }
        }
        return point
    }

    /// No journalled upload of this file to this object. A file changed since its journalled upload (another
    /// identity under the object's URL) has that upload aborted and its entry dropped; either way a new upload
    /// starts, and a note says why.
    private func startOver(_ key: UploadJournalKey, _ point: inout ResumePoint) async {
        guard let journal, let found = try? journal.latestEntry(url: key.url), found.key.file != key.file else {
            point.notes.append("no journal entry for '\(filePath)' and \(Redactor.url(objectURL)); starting a new "
                               + "multipart upload")
            return
        }
        let changes = found.key.file.differences(to: key.file).joined(separator: ", ")
        var note = "'\(filePath)' changed since its journalled upload (\(changes)): starting a new multipart upload"
        if let old = found.entry.remoteUploadId {
            let (aborted, records) = await request("AbortMultipartUpload of \(address) (the changed file's upload)",
                                                   abortSpec(old))
            point.records += records
            if case .success = aborted {
                note += "; its old upload \(old) was aborted"
            } else {
                note += "; its old upload \(old) could not be aborted: its parts stay on the server (aws s3api "
                    + "abort-multipart-upload removes them)"
            }
        }
        try? journal.remove(found.key)
        point.notes.append(note)
    }

    /// What ListParts gave: every part the server holds, or the upload unknown to it (NoSuchUpload), or a failure.
    enum Listing {
        case listed([S3ListPartsAnswer.Part])
        case gone
        case failure(String, UploadEnding)
    }

    /// Lists every part the server holds of `uploadId`, page by page from `NextPartNumberMarker` (bounded: at most one
    /// page per part S3 allows, and each page must move the marker on); nil when the engine was cancelled.
    func listParts(uploadId: String) async -> (Listing?, [TaskRecord]) {
        var listed: [S3ListPartsAnswer.Part] = []
        var records: [TaskRecord] = []
        var marker = 0
        for _ in 0..<S3PartPlan.maximumParts {
            // The query's names in SigV4's order.
            let url = objectURL + "?max-parts=\(listPageSize)" + (marker > 0 ? "&part-number-marker=\(marker)" : "")
                + "&" + Self.query(uploadId: uploadId)
            let (answer, pageRecords) = await request("ListParts of \(address)",
                                                      TaskSpec(url: url, method: "GET",
                                                               response: .memory(limit: Self.answerLimit)))
            records += pageRecords
            switch answer {
            case .none:
                return (nil, records)
            case .failure(let message, let ending):
                if let last = pageRecords.last, Self.isNoSuchUpload(last) {
                    return (.gone, records)
                }
                return (.failure(message, ending), records)
            case .success(let body):
                let page: S3ListPartsAnswer
                do {
                    page = try S3ListPartsAnswer(xml: body)
                } catch {
                    return (.failure("ListParts of \(address) answered without a list of parts: \(error)",
                                     .unreadableAnswer), records)
                }
                listed += page.parts
                guard page.isTruncated else { return (.listed(listed), records) }
                guard let next = page.nextPartNumberMarker ?? page.parts.last?.number, next > marker else {
                    return (.failure("ListParts of \(address) said more parts follow without a later part-number-marker",
                                     .unreadableAnswer), records)
                }
                marker = next
            }
        }
        return (.failure("ListParts of \(address) gave more pages than S3 allows parts", .unreadableAnswer), records)
    }

    /// Writes the journal entry of `uploadId` afresh (its part size, then the parts kept), before any part goes;
    /// returns its key, or nil (with a note) when there is no journal or it could not be written.
    func journalled(uploadId: String, parts: S3PartPlan, kept: [SegmentUploader.SentPart],
                    notes: inout [String]) -> UploadJournalKey? {
        guard let journal, let key = journalKey else { return nil }
        do {
            try journal.begin(key, segmentSize: parts.partSize, remoteUploadId: uploadId)
            for part in kept {
                let range = parts.range(ofPart: part.number)
                try journal.record(key, segment: Segment(index: part.number - 1, offset: range.offset, length: range.length))
            }
            return key
        } catch {
            notes.append("\(error); continuing without a journal (this upload cannot be resumed)")
            return nil
        }
    }
}
