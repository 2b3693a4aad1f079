/// Where a segmented upload records its progress so that a later run can resume it (`wirelens upload --resume`).
///
/// An entry is keyed by the file's identity and the upload URL. The uploader calls `record` once per segment
/// the server accepted, and expects it on disk when the call returns (a run killed right after still finds it).
/// An S3 upload's entry also keeps the server's upload id (never a credential).
package protocol UploadJournaling: Sendable {
    /// The entry for this file and URL, or nil.
    func entry(for key: UploadJournalKey) throws -> UploadJournalEntry?
    /// The newest entry for this URL whatever the file's identity, with its key, or nil: how a run tells a file
    /// changed since its journalled upload from an upload never journalled.
    func latestEntry(url: String) throws -> (key: UploadJournalKey, entry: UploadJournalEntry)?
    /// Starts a new entry, replacing any entry under the same key; `remoteUploadId` is the server's id of the
    /// upload (S3's UploadId), nil for the segment protocol.
    func begin(_ key: UploadJournalKey, segmentSize: Int64, remoteUploadId: String?) throws
    /// Records one accepted segment.
    func record(_ key: UploadJournalKey, segment: Segment) throws
    /// Deletes the entry (the upload completed).
    func remove(_ key: UploadJournalKey) throws
}

/// The key of a journal entry: the file's identity and the upload's URL (base URL or part template).
package struct UploadJournalKey: Sendable, Equatable, Hashable {
    package var file: FileIdentity
    package var url: String

    package init(file: FileIdentity, url: String) {
        self.file = file
        self.url = url
    }
}

extension UploadJournaling {
    /// Starts a new entry without a server-side upload id (the segment protocol's).
    package func begin(_ key: UploadJournalKey, segmentSize: Int64) throws {
        try begin(key, segmentSize: segmentSize, remoteUploadId: nil)
    }
}

/// A journal entry: the segment size the upload started with, the segments accepted so far and, for S3, the
/// server's upload id.
package struct UploadJournalEntry: Sendable, Equatable {
    package var segmentSize: Int64
    package var done: [Segment]
    /// S3's UploadId of the multipart upload; nil for the segment protocol.
    package var remoteUploadId: String?

    package init(segmentSize: Int64, done: [Segment], remoteUploadId: String? = nil) {
        self.segmentSize = segmentSize
        self.done = done
        self.remoteUploadId = remoteUploadId
    }
}
