/// An optional property written as JSON `null` when absent, where synthesized Codable would leave the key out.
///
/// The report's convention: a fact that is unknown (a field the running kernel lacks) is `null`, never missing and
/// never 0. Reading a document where the key is missing gives nil too.
///
/// Its conformances are conditional, not constraints of the type: the runtime builds the metadata of a
/// `NullWhenAbsent<X>` it meets by name (destroying a record in generic code) without searching the binary's
/// conformance records for each of X's protocols, a search every single probe paid at start-up.
@propertyWrapper
public struct NullWhenAbsent<Value: Sendable>: Sendable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }
}

extension NullWhenAbsent: Equatable where Value: Equatable {}

extension NullWhenAbsent: Codable where Value: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A missing key reads as an absent value.
    public func decode<T: Codable>(_ type: NullWhenAbsent<T>.Type, forKey key: Key) throws -> NullWhenAbsent<T> {
        try decodeIfPresent(type, forKey: key) ?? NullWhenAbsent(wrappedValue: nil)
    }
}
