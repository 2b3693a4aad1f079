import WirelensCore

/// The text view of a segmented upload's `upload` section: outcome, segments, retries and the sizes chosen.
struct UploadView {
    let style: ANSIStyle

    /// Segment size changes listed at most; an auto-sized upload may change size at every segment.
    static let sizesShown = 6

    /// The lines of the view, headed "Upload".
    func lines(for u: UploadSection) -> [String] {
        var out = [style.paint("Upload", .bold)]
        out += ReportText.keyValue("File", "\(TextLayout.sanitize(u.file)) (\(ByteSize.format(u.fileBytes)))")
        let outcome: String
        if let failure = u.failure {
            outcome = style.paint("failed: \(TextLayout.sanitize(failure))", .red)
        } else if let s3 = u.s3 {
            outcome = s3.etagMatches == true ? style.paint("complete, ETag verified", .green)
                : style.paint("complete, ETag differs", .red)
        } else if u.verified {
            outcome = style.paint("complete, SHA-256 verified", .green)
        } else if u.serverSHA256 == nil {
            outcome = "complete, not verified (no complete call)"
        } else {
            outcome = style.paint("complete, SHA-256 differs", .red)
        }
        out += ReportText.keyValue("Outcome", outcome)
        if let s3 = u.s3 {
            out += ReportText.keyValue("Object", TextLayout.sanitize("s3://\(s3.bucket)/\(s3.key)")
                                       + (s3.uploadId == nil ? " (one PutObject)" : " (\(s3.parts) parts)"))
            var etag = "\(s3.objectETag ?? "none"), expected \(s3.expectedETag)"
            if s3.aborted { etag += "; upload aborted" } else if s3.keptParts { etag += "; parts kept (--keep-parts)" }
            out += ReportText.keyValue("ETag", TextLayout.sanitize(etag))
        }
        if let digest = u.fileSHA256 { out += ReportText.keyValue("SHA-256", digest) }
        if let server = u.serverSHA256, server != u.fileSHA256 { out += ReportText.keyValue("Server digest", server) }
        var segments = "\(u.segmentsSent) sent of \(u.segmentsTotal), \(u.peakInFlight ?? u.parallel) in flight at most"
        if u.resumed {
            segments += "; resumed: \(u.resumedSegmentsSkipped) skipped (\(ByteSize.format(u.resumedBytesSkipped)))"
        }
        out += ReportText.keyValue("Segments", segments)
        var sizes = u.segmentSizes.prefix(Self.sizesShown).map { "\(ByteSize.format($0.bytes)) from #\($0.fromSegment)" }
        if u.segmentSizes.count > Self.sizesShown {
            sizes.append("\(u.segmentSizes.count - Self.sizesShown) more changes (in the JSON report)")
        }
        out += ReportText.keyList("Sizes (\(u.segmentMode))", sizes)
        out += ReportText.keyValue("Retries", "\(u.segmentsRetried) segments retried, \(u.failedAttempts) failed attempts, "
                                   + "\(ByteSize.format(u.bytesSentTwice)) sent twice, "
                                   + "\(ReportText.duration(ms: u.timeLostToRetriesMs)) lost")
        let rate = u.effectiveBytesPerSecond.map(ByteSize.formatRate) ?? "—"
        out += ReportText.keyValue("Throughput", "\(rate) effective (file bytes over \(ReportText.duration(ms: u.wallMs)))")
        if let why = u.why { out += ReportText.keyValue("Why", why) }
        return out
    }
}
