import WirelensCore

/// A `wirelens compare` input (workload, limits, modes) that could not be parsed, with a one-line message
/// naming the input and what to write instead.
public struct CompareParseError: Error, Equatable, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}
