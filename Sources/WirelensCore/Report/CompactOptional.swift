/// An optional integer kept in the integer's own width, with the type's minimum standing for nil.
///
/// Reports keep one record per transaction, and most of their fields are optional instants and
/// durations: an `Int64?` takes 16 bytes in a struct, this takes 8. The minimum value never occurs as an
/// instant, duration, port, status or connection number, so it is free to mean "absent"; storing it
/// anyway reads back as nil.
@propertyWrapper
public struct CompactOptional<Value: FixedWidthInteger & SignedInteger & Sendable>: Sendable, Equatable, Hashable {
    private var raw: Value

    public init(wrappedValue: Value?) {
        raw = wrappedValue ?? .min
    }

    public var wrappedValue: Value? {
        get { raw == .min ? nil : raw }
        set { raw = newValue ?? .min }
    }
}
