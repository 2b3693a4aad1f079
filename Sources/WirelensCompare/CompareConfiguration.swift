import WirelensCore

/// One compared configuration: a mode at a connection limit.
public struct CompareConfiguration: Sendable, Equatable, Codable {
    public var mode: CompareMode
    public var limit: CompareLimit

    public init(mode: CompareMode, limit: CompareLimit) {
        self.mode = mode
        self.limit = limit
    }

    /// "h1 @ 4", "h2 @ ios (4)".
    public var name: String { "\(mode.rawValue) @ \(limit.display)" }

    /// Every mode at every limit, modes outermost, in the order given.
    public static func all(modes: [CompareMode], limits: [CompareLimit]) -> [CompareConfiguration] {
        modes.flatMap { mode in limits.map { CompareConfiguration(mode: mode, limit: $0) } }
    }

    /// The interleaved schedule of `repetitions` over `count` configurations: A B C A B C …, so that drift on a
    /// noisy machine falls on every configuration alike. Each step is (repetition, configuration index).
    public static func schedule(count: Int, repetitions: Int) -> [(repetition: Int, configuration: Int)] {
        (0..<max(0, repetitions)).flatMap { r in (0..<max(0, count)).map { (r, $0) } }
    }
}
