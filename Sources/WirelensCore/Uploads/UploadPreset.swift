/// The upload settings of a known client, for `wirelens upload --preset NAME` (and the names later commands
/// compare against). A field left nil is not part of the preset; explicit flags override every field.
package struct UploadPreset: Sendable, Equatable {
    package let name: String
    /// Who behaves like this, for the help text.
    package let about: String
    /// Segments in flight at once.
    package var parallel: Int?
    /// Retries per segment.
    package var retries: Int?
    /// Idle timeout in µs.
    package var idleTimeout: Int64?
    /// Segment size in bytes.
    package var segmentSize: Int64?
    /// Connections per host at most.
    package var maxHostConnections: Int?
    /// For S3: the size from which a file goes as a multipart upload (smaller ones as one PutObject), aws-cli's
    /// `multipart_threshold`; nil: the default, aws-cli's 8 MiB.
    package var multipartThreshold: Int64?

    /// Every preset, in the order the help lists them.
    package static let all: [UploadPreset] = [
        // The OSS iOS SDK's defaults: OSSClientConfiguration's maxConcurrentRequestCount 5, maxRetryCount 3,
        // timeoutIntervalForRequest 15 s; OSSMultipartUploadRequest's and OSSResumableUploadRequest's partSize 256 KiB
        // (below S3's 5 MiB part minimum: an s3:// upload raises it to that minimum, saying so).
        UploadPreset(name: "oss-ios",
                     about: "Alibaba OSS iOS SDK: 5 parts in flight, 3 retries, 15 s idle timeout, 256 KiB parts",
                     parallel: 5, retries: 3, idleTimeout: 15_000_000, segmentSize: 256 << 10),
        // aws-cli's transfer defaults (awscli/customizations/s3/transferconfig.py): max_concurrent_requests 10,
        // multipart_chunksize 8 MiB, multipart_threshold 8 MiB (a file of at least that size goes in parts).
        UploadPreset(name: "aws-cli", about: "AWS CLI s3 cp: 10 parts in flight, 8 MiB parts, multipart from 8 MiB",
                     parallel: 10, segmentSize: 8 << 20, multipartThreshold: 8 << 20),
        UploadPreset(name: "ios", about: "URLSession on iOS: 4 connections per host",
                     parallel: 4, maxHostConnections: 4),
        UploadPreset(name: "macos", about: "URLSession on macOS: 6 connections per host",
                     parallel: 6, maxHostConnections: 6),
    ]

    /// The preset called `name`, or nil.
    package static func named(_ name: String) -> UploadPreset? {
        all.first { $0.name == name.lowercased() }
    }

    package init(name: String, about: String, parallel: Int? = nil, retries: Int? = nil, idleTimeout: Int64? = nil,
                segmentSize: Int64? = nil, maxHostConnections: Int? = nil, multipartThreshold: Int64? = nil) {
        self.name = name
        self.about = about
        self.parallel = parallel
        self.retries = retries
        self.idleTimeout = idleTimeout
        self.segmentSize = segmentSize
        self.maxHostConnections = maxHostConnections
        self.multipartThreshold = multipartThreshold
    }
}
