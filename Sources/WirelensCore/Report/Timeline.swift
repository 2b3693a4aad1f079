/// The instants of one transaction, named as in Apple's URLSessionTaskTransactionMetrics.
///
/// Values are microseconds since the Unix epoch; nil means the step did not happen
/// (a reused connection has no DNS, connect or TLS step).
public struct Timeline: Sendable, Equatable {
    public var fetchStart: Int64
    @CompactOptional public var domainLookupStart: Int64? = nil
    @CompactOptional public var domainLookupEnd: Int64? = nil
    @CompactOptional public var connectStart: Int64? = nil
    @CompactOptional public var connectEnd: Int64? = nil
    @CompactOptional public var secureConnectionStart: Int64? = nil
    @CompactOptional public var secureConnectionEnd: Int64? = nil
    @CompactOptional public var requestStart: Int64? = nil
    @CompactOptional public var requestEnd: Int64? = nil
    @CompactOptional public var responseStart: Int64? = nil
    @CompactOptional public var responseEnd: Int64? = nil

    public init(fetchStart: Int64) {
        self.fetchStart = fetchStart
    }

    /// The JSON names of the fields, in timeline order.
    public static let names = [
        "fetchStart", "domainLookupStart", "domainLookupEnd", "connectStart", "connectEnd",
        "secureConnectionStart", "secureConnectionEnd", "requestStart", "requestEnd", "responseStart", "responseEnd",
    ]

    /// The value of a field by its position in `names`.
    public func value(at index: Int) -> Int64? {
        switch index {
        case 0: fetchStart
        case 1: domainLookupStart
        case 2: domainLookupEnd
        case 3: connectStart
        case 4: connectEnd
        case 5: secureConnectionStart
        case 6: secureConnectionEnd
        case 7: requestStart
        case 8: requestEnd
        case 9: responseStart
        case 10: responseEnd
        default: nil
        }
    }

    /// The fields in timeline order, with their JSON names.
    public var fields: [(name: String, value: Int64?)] {
        Self.names.enumerated().map { ($0.element, value(at: $0.offset)) }
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
