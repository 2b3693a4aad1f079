import WirelensCore

/// The phases of a transaction in timeline order, with their labels, colours and timeline instants.
enum WaterfallPhase: String, CaseIterable, Sendable {
    case queue, dns, connect, tls, send, wait, receive

    /// The longest label, which sets the width of the label column.
    static let labelWidth = allCases.map(\.label.count).max() ?? 0

    /// The label shown in the text report.
    var label: String {
        switch self {
        case .queue: "Queue wait"
        case .dns: "DNS lookup"
        case .connect: "TCP connect"
        case .tls: "TLS handshake"
        case .send: "Request sent (upload)"
        case .wait: "Server wait"
        case .receive: "Content download"
        }
    }

    /// The colour of the phase's bar.
    var tone: ANSIStyle.Tone {
        switch self {
        case .queue: .gray
        case .dns: .cyan
        case .connect: .green
        case .tls: .magenta
        case .send: .blue
        case .wait: .yellow
        case .receive: .brightCyan
        }
    }

    /// The phase's duration in µs, nil when it did not happen.
    func duration(in phases: Phases) -> Int64? {
        phases.value(named: rawValue)
    }

    /// The wall-clock µs at which the phase began, nil when it did not begin.
    func start(in timeline: Timeline) -> Int64? {
        switch self {
        case .queue: timeline.fetchStart
        case .dns: timeline.domainLookupStart
        case .connect: timeline.connectStart
        case .tls: timeline.secureConnectionStart
        case .send: timeline.requestStart
        case .wait: timeline.requestEnd
        case .receive: timeline.responseStart
        }
    }
}
