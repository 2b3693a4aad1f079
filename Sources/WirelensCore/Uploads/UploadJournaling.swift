/// Where a segmented upload records its progress so that a later run can resume it (`wirelens upload --resume`).
///
/// An entry is keyed by the file's identity and the upload URL. The uploader calls `record` once per segment
/// the server accepted, and expects it on disk when the call returns (a run killed right after still finds it).
public protocol UploadJournaling: Sendable {
    /// The entry for this file and URL, or nil.
    func entry(for key: UploadJournalKey) throws -> UploadJournalEntry?
    /// Starts a new entry, replacing any entry under the same key.
    func begin(_ key: UploadJournalKey, segmentSize: Int64) throws
    /// Records one accepted segment.
    func record(_ key: UploadJournalKey, segment: Segment) throws
    /// Deletes the entry (the upload completed).
    func remove(_ key: UploadJournalKey) throws
}

/// The key of a journal entry: the file's identity and the upload's URL (base URL or part template).
public struct UploadJournalKey: Sendable, Equatable, Hashable {
    public var file: FileIdentity
    public var url: String

    public init(file: FileIdentity, url: String) {
        self.file = file
        self.url = url
    }
}

/// A journal entry: the segment size the upload started with and the segments accepted so far.
public struct UploadJournalEntry: Sendable, Equatable {
    public var segmentSize: Int64
    public var done: [Segment]

    public init(segmentSize: Int64, done: [Segment]) {
        self.segmentSize = segmentSize
        self.done = done
    }
}
