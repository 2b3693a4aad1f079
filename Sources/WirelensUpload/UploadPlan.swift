import WirelensCore

/// A checked segmented upload: the file, where its segments go, how they are sized, and how many run at once.
package struct UploadPlan: Sendable, Equatable {
    /// The local file and its size.
    package var filePath: String
    package var fileSize: Int64
    /// The URL as given: the upload's base (segment protocol) or the report's name for it.
    package var url: String
    /// The part URL template with `{index}`, `{offset}` and `{length}`.
    package var partTemplate: String
    /// Where the end of the upload is announced (POST, empty body), or nil for none.
    package var completeURL: String?
    /// True when the server speaks the Wirelens target's segment protocol: part answers carry JSON with the
    /// part's offset and length, which is checked.
    package var segmentProtocol: Bool
    package var sizing: SegmentSizer.Mode
    /// True when each part carries `Content-Range: bytes a-b/total`: always with the segment protocol; with a
    /// template only when it has no `{offset}` (plain PUT servers such as nginx's dav module refuse a ranged PUT).
    package var sendsContentRange: Bool {
        !s3Parts && (segmentProtocol || !partTemplate.contains("{offset}"))
    }
    /// True for S3's UploadPart (`S3Upload`): each part carries its Content-MD5 instead of a Content-Range, its
    /// answer's ETag is kept for CompleteMultipartUpload, and an error answer's S3 code is read.
    package var s3Parts = false
    /// Segments in flight at once.
    package var parallel: Int
    /// Retries per segment after its first attempt.
    package var maxRetries: Int
    /// No segment is retried once this many µs passed since the upload began (`--retry-max-time`); nil: no limit.
    package var retryMaxTime: Int64?
    /// The preset's name, if one was asked for.
    package var preset: String?

    /// A plan for the segment protocol: parts to `URL/part/{index}`, the end to `URL/complete`.
    package init(filePath: String, fileSize: Int64, baseURL: String, sizing: SegmentSizer.Mode, parallel: Int,
                maxRetries: Int, preset: String? = nil) {
        self.filePath = filePath
        self.fileSize = fileSize
        url = baseURL
        partTemplate = Self.appending("/part/{index}", to: baseURL)
        completeURL = Self.appending("/complete", to: baseURL)
        segmentProtocol = true
        self.sizing = sizing
        self.parallel = parallel
        self.maxRetries = maxRetries
        self.preset = preset
    }

    /// A plan for another server: parts to `partTemplate`, the end to `completeURL` when given.
    package init(filePath: String, fileSize: Int64, url: String, partTemplate: String, completeURL: String?,
                sizing: SegmentSizer.Mode, parallel: Int, maxRetries: Int, preset: String? = nil) {
        self.filePath = filePath
        self.fileSize = fileSize
        self.url = url
        self.partTemplate = partTemplate
        self.completeURL = completeURL
        segmentProtocol = false
        self.sizing = sizing
        self.parallel = parallel
        self.maxRetries = maxRetries
        self.preset = preset
    }

    /// `base` with `path` appended to its path: before its query and fragment, without a doubled slash.
    static func appending(_ path: String, to base: String) -> String {
        let cut = base.firstIndex { $0 == "?" || $0 == "#" } ?? base.endIndex
        var head = String(base[..<cut])
        while head.hasSuffix("/") { head.removeLast() }
        return head + path + base[cut...]
    }
}
