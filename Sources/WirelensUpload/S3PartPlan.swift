/// How a file is cut for an S3 upload: one PutObject, or multipart parts of one size (the last may be shorter)
/// within S3's rules (each part but the last at least 5 MiB, at most 5 GiB, at most 10,000 parts).
///
/// A part size asked for outside those bounds is refused; a file that would need more than 10,000 parts gets the
/// size doubled until it fits, as aws-cli does, and is refused when even 5 GiB parts do not fit.
package struct S3PartPlan: Sendable, Equatable {
    /// S3's smallest part but the last.
    package static let minimumPartSize: Int64 = 5 << 20
    /// S3's largest part (and largest PutObject).
    package static let maximumPartSize: Int64 = 5 << 30
    /// S3's most parts in one upload.
    package static let maximumParts = 10_000
    /// Files smaller than this go as one PutObject unless a caller says otherwise (aws-cli's default threshold).
    package static let defaultThreshold: Int64 = 8 << 20

    /// The file's size in bytes.
    package var fileSize: Int64
    /// The size of every part but the last; for a single PutObject, the file's size.
    package var partSize: Int64
    /// True when the file goes as one PutObject rather than a multipart upload.
    package var single: Bool

    /// How many parts (1 for a PutObject, and for an empty file).
    package var partCount: Int {
        single || fileSize == 0 ? 1 : Int((fileSize + partSize - 1) / partSize)
    }

    /// The byte range of part `number` (1-based, as S3 numbers them): its offset and length.
    package func range(ofPart number: Int) -> (offset: Int64, length: Int64) {
        let offset = Int64(number - 1) * partSize
        return (offset, max(0, min(partSize, fileSize - offset)))
    }

    /// The plan for a file of `fileSize` bytes in parts of `partSize` (aws-cli's 8 MiB when nil); a file smaller
    /// than `threshold` goes as one PutObject.
    package init(fileSize: Int64, partSize requested: Int64? = nil,
                threshold: Int64 = S3PartPlan.defaultThreshold) throws(S3PartPlanError) {
        guard fileSize >= 0 else { throw .negativeSize(fileSize) }
        self.fileSize = fileSize
        if fileSize < threshold {
            guard fileSize <= Self.maximumPartSize else { throw .tooLarge(fileSize) }
            single = true
            partSize = fileSize
            return
        }
        var size = requested ?? Self.defaultThreshold
        guard size >= Self.minimumPartSize else { throw .partTooSmall(size) }
        guard size <= Self.maximumPartSize else { throw .partTooLarge(size) }
        while (fileSize + size - 1) / size > Int64(Self.maximumParts) {
            size *= 2
        }
        guard size <= Self.maximumPartSize else { throw .tooLarge(fileSize) }
        single = false
        partSize = size
    }
}

/// Why a file cannot be cut for S3: each case's description is the one-line error the CLI prints.
package enum S3PartPlanError: Error, Equatable, CustomStringConvertible {
    case negativeSize(Int64)
    case partTooSmall(Int64)
    case partTooLarge(Int64)
    case tooLarge(Int64)

    package var description: String {
        switch self {
        case .negativeSize(let size):
            "file size \(size) is negative"
        case .partTooSmall(let size):
            "--segment-size \(size) is below S3's 5 MiB part minimum: give 5M or more"
        case .partTooLarge(let size):
            "--segment-size \(size) is above S3's 5 GiB part maximum: give 5G or less"
        case .tooLarge(let size):
            "a \(size)-byte file does not fit S3's 10,000 parts of at most 5 GiB: split it"
        }
    }
}
