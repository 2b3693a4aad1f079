/// The outcome of one assertion: passed or not, with what was measured and the limit it was held to.
package struct AssertionResult: Sendable, Equatable {
    /// The assertion's name (its key under `expect:`).
    package var name: String
    package var passed: Bool
    /// The measured value for people, e.g. `950ms`, `503`, `did not happen`.
    package var measured: String
    /// The limit for people, e.g. `max 800ms`, `one of 200, 201`.
    package var limit: String

    package init(name: String, passed: Bool, measured: String, limit: String) {
        self.name = name
        self.passed = passed
        self.measured = measured
        self.limit = limit
    }
}
