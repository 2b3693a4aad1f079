#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Downloads a URL into a file, resuming a partial file with a Range request and checking the final length.
///
/// Each attempt is one task of the engine (its own retries are not used: a retry must ask for the bytes from
/// where the file now ends, not from where the first attempt began).
package struct ResumableDownload: Sendable {
    package var url: String
    package var path: String
    /// Continue a file that already holds part of the resource (as `curl -C -`); otherwise start from byte 0.
    package var resume: Bool
    /// Further attempts after a failed or short one; each resumes from the file's end.
    package var retries: Int

    package init(url: String, path: String, resume: Bool, retries: Int) {
        self.url = url
        self.path = path
        self.resume = resume
        self.retries = retries
    }

    /// What a download came to.
    package struct Outcome: Sendable, Equatable {
        /// Every attempt's record, in order.
        package var records: [TaskRecord]
        /// Bytes the file held before the first attempt (0 without --resume).
        package var resumedFrom: Int64
        /// The last attempt's verdict.
        package var verdict: DownloadCheck.Verdict
    }

    /// Runs attempts until the file is complete, the answer is wrong, the attempts run out or `interrupted()`.
    /// The engine must keep response headers (`includeResponseHeaders`).
    package func run(engine: Engine, interrupted: @Sendable () -> Bool) async -> Outcome {
        let resumedFrom = resume ? Self.regularSize(of: path) ?? 0 : 0
        var records: [TaskRecord] = []
        var verdict = DownloadCheck.Verdict.short(have: resumedFrom, expected: nil)
        var random = SystemRandomNumberGenerator()
        let policy = RetryPolicy(maxRetries: retries, maxTime: engine.options.retry.maxTime)
        let started = MonotonicClock.now()
        for attempt in 0...max(0, retries) {
            let offset = attempt == 0 ? resumedFrom : Self.regularSize(of: path) ?? 0
            var spec = TaskSpec(url: url, outputPath: path)
            if offset > 0 {
                spec.headers = [DownloadCheck.rangeHeader(resumingFrom: offset)]
                spec.resumeOutput = true
            }
            guard var record = await engine.run([spec]).first else { break }
            record.index = records.count
            let final = record.transactions.last
            let failed = record.error.map { $0.errorClass != .http } ?? false
            // Not a regular file (/dev/null, a pipe): what it holds is what this attempt wrote to it.
            var held = Self.regularSize(of: path) ?? offset + (final?.responseBodyBytes ?? 0)
            // --compressed: Content-Length counts the encoded body, which is what came over the wire.
            if let wire = final?.responseBodyWireBytes,
               final?.responseHeaders?.contains(where: { $0.name.lowercased() == "content-encoding" }) == true {
                held = offset + wire
            }
            verdict = DownloadCheck.verdict(status: record.statusCode, headers: final?.responseHeaders ?? [],
                                            requestedFrom: offset, sizeOnDisk: held,
                                            transferFailed: failed)
            let errorClass = record.error?.errorClass
            records.append(record)
            guard case .short = verdict, !interrupted(), errorClass != .cancelled, attempt < retries,
                  policy.allowsRetry(elapsed: (MonotonicClock.now() - started) / 1000) else { break }
            // A short file without a transport error (the server closed early) backs off like a network error.
            let delay = policy.delay(retry: attempt + 1, error: errorClass ?? .network, status: nil,
                                     retryAfter: nil, unit: Double.random(in: 0..<1, using: &random)) ?? policy.baseDelay
            try? await Task.sleep(nanoseconds: UInt64(max(0, delay)) * 1000)
        }
        return Outcome(records: records, resumedFrom: resumedFrom, verdict: verdict)
    }

    /// The size of the file at `path`: its length when it is a regular file, 0 when there is none, nil when it
    /// is something else (/dev/null, a FIFO), whose size says nothing about what was written to it.
    static func regularSize(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : nil
    }
}
