/// The instants of one transaction, named as in Apple's URLSessionTaskTransactionMetrics.
///
/// Values are microseconds since the Unix epoch; nil means the step did not happen
/// (a reused connection has no DNS, connect or TLS step).
public struct Timeline: Sendable, Equatable {
    public var fetchStart: Int64
    public var domainLookupStart: Int64?
    public var domainLookupEnd: Int64?
    public var connectStart: Int64?
    public var connectEnd: Int64?
    public var secureConnectionStart: Int64?
    public var secureConnectionEnd: Int64?
    public var requestStart: Int64?
    public var requestEnd: Int64?
    public var responseStart: Int64?
    public var responseEnd: Int64?

    public init(fetchStart: Int64) {
        self.fetchStart = fetchStart
    }

    /// The fields in timeline order, with their JSON names.
    public var fields: [(name: String, value: Int64?)] {
        [
            ("fetchStart", fetchStart),
            ("domainLookupStart", domainLookupStart), ("domainLookupEnd", domainLookupEnd),
            ("connectStart", connectStart), ("connectEnd", connectEnd),
            ("secureConnectionStart", secureConnectionStart), ("secureConnectionEnd", secureConnectionEnd),
            ("requestStart", requestStart), ("requestEnd", requestEnd),
            ("responseStart", responseStart), ("responseEnd", responseEnd),
        ]
    }

    /// Builds a timeline from named fields, the inverse of `fields` (used when decoding reports).
    public init?(fields: [String: Int64]) {
        guard let start = fields["fetchStart"] else { return nil }
        self.init(fetchStart: start)
        domainLookupStart = fields["domainLookupStart"]
        domainLookupEnd = fields["domainLookupEnd"]
        connectStart = fields["connectStart"]
        connectEnd = fields["connectEnd"]
        secureConnectionStart = fields["secureConnectionStart"]
        secureConnectionEnd = fields["secureConnectionEnd"]
        requestStart = fields["requestStart"]
        requestEnd = fields["requestEnd"]
        responseStart = fields["responseStart"]
        responseEnd = fields["responseEnd"]
    }
}
