import Foundation

/// What a download's answer means for the file on disk: complete, still short, or wrong.
package enum DownloadCheck {
    /// The outcome of one attempt.
    package enum Verdict: Sendable, Equatable {
        /// The file holds the whole resource.
        case complete(size: Int64)
        /// The file is shorter than the resource (or its length is unknown): another attempt may resume it.
        case short(have: Int64, expected: Int64?)
        /// The answer cannot be made into the file: one line saying why.
        case wrong(String)
    }

    /// The request header that resumes a download holding `offset` bytes: `Range: bytes=offset-`.
    package static func rangeHeader(resumingFrom offset: Int64) -> HeaderField {
        HeaderField(name: "Range", value: "bytes=\(offset)-")
    }

    /// Judges an attempt from its final status and response headers, the offset it asked to resume from
    /// (0: the whole resource), the file's size after it, and whether the transfer itself failed.
    package static func verdict(status: Int?, headers: [HeaderField], requestedFrom offset: Int64, sizeOnDisk: Int64,
                               transferFailed: Bool) -> Verdict {
        func header(_ name: String) -> String? {
            headers.last { $0.name.lowercased() == name }?.value
        }
        guard let status else { return .short(have: sizeOnDisk, expected: nil) }
        switch status {
        case 206:
            guard let text = header("content-range"), let range = ContentRange.parse(text), let first = range.first,
                  let last = range.last else {
                return .wrong("a 206 answer without a usable Content-Range")
            }
            guard first == offset else {
                return .wrong("asked for bytes from \(offset), the server sent bytes from \(first)")
            }
            let expected = range.total ?? (last + 1)
            return judge(size: sizeOnDisk, expected: expected)
        case 200..<300:
            let expected = header("content-length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard let expected else {
                return transferFailed ? .short(have: sizeOnDisk, expected: nil) : .complete(size: sizeOnDisk)
            }
            return judge(size: sizeOnDisk, expected: expected)
        case 416:
            guard let text = header("content-range"), let total = ContentRange.parse(text)?.total else {
                return .wrong("416 Range Not Satisfiable without the resource's length")
            }
            if sizeOnDisk == total { return .complete(size: total) }
            return .wrong("the server has \(total) bytes but the file already holds \(sizeOnDisk); remove it or drop --resume")
        default:
            if transferFailed && status < 400 { return .short(have: sizeOnDisk, expected: nil) }
            return .wrong("HTTP status \(status)")
        }
    }

    private static func judge(size: Int64, expected: Int64) -> Verdict {
        if size == expected { return .complete(size: size) }
        if size > expected { return .wrong("the file holds \(size) bytes, more than the \(expected) expected") }
        return .short(have: size, expected: expected)
    }
}
