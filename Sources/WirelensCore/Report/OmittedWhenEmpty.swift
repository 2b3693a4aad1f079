/// An array property whose key a synthesized `Codable` leaves out when the array is empty, and reads as empty when
/// the key is missing.
///
/// For a member a document holds only at some detail levels (`TCPFacts.samples`, `ReportDetail.full`): a writer
/// that leaves it out empties it, and a reader of a document without it gets the empty array.
@propertyWrapper
public struct OmittedWhenEmpty<Element: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: [Element]

    public init(wrappedValue: [Element]) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode([Element].self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedEncodingContainer {
    /// An empty array writes no key.
    public mutating func encode<T>(_ value: OmittedWhenEmpty<T>, forKey key: Key) throws {
        guard !value.wrappedValue.isEmpty else { return }
        try encode(value.wrappedValue, forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// A missing key reads as an empty array.
    public func decode<T>(_ type: OmittedWhenEmpty<T>.Type, forKey key: Key) throws -> OmittedWhenEmpty<T> {
        try decodeIfPresent(type, forKey: key) ?? OmittedWhenEmpty(wrappedValue: [])
    }
}
