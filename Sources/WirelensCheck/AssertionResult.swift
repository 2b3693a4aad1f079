/// The outcome of one assertion: passed or not, with what was measured and the limit it was held to.
public struct AssertionResult: Sendable, Equatable {
    /// The assertion's name (its key under `expect:`).
    public var name: String
    public var passed: Bool
    /// The measured value for people, e.g. `950ms`, `503`, `did not happen`.
    public var measured: String
    /// The limit for people, e.g. `max 800ms`, `one of 200, 201`.
    public var limit: String

    public init(name: String, passed: Bool, measured: String, limit: String) {
        self.name = name
        self.passed = passed
        self.measured = measured
        self.limit = limit
    }
}
