/// Why a verdict is `unknown`: one of the rules' own reasons, or the engine's reason for having no kernel facts.
///
/// A report holds it as its text, the sentence of the case; reading a report gives the rule's case back for its
/// sentence, and any other text as `noKernelFacts`.
public enum UnknownReason: Sendable, Equatable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The body moved within `Diagnosis.shortTransferRoundTrips` round trips (the sentence adds the moving time and RTT).
    case tooShort
    /// An upload's send phase was under `Diagnosis.stopwatchFloor`, too short for the kernel's stopwatches.
    case belowStopwatchFloor
    /// The kernel lacks the limited-time stopwatches an upload's verdict needs.
    case noStopwatches
    /// A download without the path's minimum RTT.
    case noMinimumRTT
    /// A download without a receive window.
    case noReceiveWindow
    /// No kernel facts, for the engine's reason ("not Linux", "kernel facts were not read (--tcp-sample off)", ...).
    case noKernelFacts(String)

    /// The reason's text, as a report writes it.
    public var text: String {
        switch self {
        case .tooShort: "too short to tell: the body moved within \(Diagnosis.shortTransferRoundTrips) round trips"
        case .belowStopwatchFloor:
            "too short to tell: the send phase was under 100 ms, and the kernel's stopwatches count whole clock ticks "
                + "(1-10 ms)"
        case .noStopwatches: "the kernel lacks the limited-time stopwatches (tcpi_busy_time, Linux 4.10)"
        case .noMinimumRTT:
            "the kernel gave no minimum RTT (tcpi_min_rtt, Linux 4.6) to weigh the client's window against"
        case .noReceiveWindow: "the kernel gave no receive window (tcpi_rcv_wnd, Linux 6.3, nor tcpi_rcv_ssthresh)"
        case .noKernelFacts(let reason): reason
        }
    }

    public var description: String { text }

    /// The reason a report's text names: a rule's own case, or the engine's reason.
    public init(text: String) {
        let rules: [UnknownReason] = [.tooShort, .belowStopwatchFloor, .noStopwatches, .noMinimumRTT, .noReceiveWindow]
        self = rules.first { $0.text == text } ?? .noKernelFacts(text)
    }

    public init(stringLiteral text: String) {
        self.init(text: text)
    }

    public init(from decoder: Decoder) throws {
        self.init(text: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
