/// A value carried beside a record's facts that takes no part in the record's equality.
///
/// For what the engine hands on to the report's aggregates but the record's document does not hold (a stored
/// report read back lacks it, and is still equal to the one written).
@propertyWrapper
public struct NotCompared<Value: Sendable>: Sendable, Equatable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    /// Always equal.
    public static func == (_: NotCompared, _: NotCompared) -> Bool { true }
}
