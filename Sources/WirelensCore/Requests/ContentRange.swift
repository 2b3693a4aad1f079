import Foundation

/// A Content-Range header value of a 206 (`bytes a-b/total`, total may be `*`) or a 416 (`bytes */total`).
package struct ContentRange: Sendable, Equatable {
    /// First and last byte sent (inclusive); nil in a 416's `bytes */total`.
    package var first: Int64?
    package var last: Int64?
    /// The resource's full length; nil when the server wrote `*`.
    package var total: Int64?

    package init(first: Int64?, last: Int64?, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// Parses the header's value; nil when it is not a byte range as RFC 9110 writes it.
    package static func parse(_ value: String) -> ContentRange? {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let total: Int64?
        if halves[1] == "*" { total = nil } else {
            guard let value = Int64(halves[1]), value >= 0 else { return nil }
            total = value
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            return ContentRange(first: nil, last: nil, total: total)
        }
        let ends = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Int64(ends[0]), let last = Int64(ends[1]), first >= 0, last >= first else {
            return nil
        }
        if let total, last >= total { return nil }
        return ContentRange(first: first, last: last, total: total)
    }
}
