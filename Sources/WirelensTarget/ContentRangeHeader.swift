import Foundation

/// The `Content-Range: bytes a-b/total` header of a segment upload (inclusive bounds, known total).
package struct ContentRangeHeader: Equatable, Sendable {
    package var first: Int64
    package var last: Int64
    package var total: Int64

    /// The number of bytes the range covers.
    package var length: Int64 { last - first + 1 }

    package init(first: Int64, last: Int64, total: Int64) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// Parses the header value; the error text says what is wrong, for a 400 answer.
    package static func parse(_ header: String?) -> Result<ContentRangeHeader, TargetFailure> {
        guard let header else {
            return .failure(.badRequest("missing Content-Range header; send 'Content-Range: bytes first-last/total'"))
        }
        let text = header.trimmingCharacters(in: [" ", "\t"])
        let bad = TargetFailure.badRequest("malformed Content-Range '\(header)'; expected 'bytes first-last/total'")
        guard text.lowercased().hasPrefix("bytes ") else { return .failure(bad) }
        let spec = text.dropFirst(6).trimmingCharacters(in: [" "])
        guard let slash = spec.firstIndex(of: "/"), let dash = spec[..<slash].firstIndex(of: "-"),
              let first = ByteRangeRequest.digits(spec[..<dash]),
              let last = ByteRangeRequest.digits(spec[spec.index(after: dash)..<slash]),
              let total = ByteRangeRequest.digits(spec[spec.index(after: slash)...]) else { return .failure(bad) }
        guard first <= last else {
            return .failure(.badRequest("Content-Range '\(header)': first byte \(first) is after last byte \(last)"))
        }
        guard last < total else {
            return .failure(.badRequest("Content-Range '\(header)': last byte \(last) is not below the total \(total)"))
        }
        return .success(ContentRangeHeader(first: first, last: last, total: total))
    }
}
