/// The phase colours of the HTML waterfall: distinct hues that stay legible on white.
extension WaterfallPhase {
    /// The CSS colour of the phase's bar.
    var cssColor: String {
        switch self {
        case .queue: "#b6bec9"
        case .dns: "#14b8a6"
        case .connect: "#22c55e"
        case .tls: "#a855f7"
        case .send: "#3b82f6"
        case .wait: "#f59e0b"
        case .receive: "#ec4899"
        }
    }

    /// The short name shown in the legend and hover titles.
    var shortLabel: String {
        switch self {
        case .queue: "queue"
        case .dns: "DNS"
        case .connect: "connect"
        case .tls: "TLS"
        case .send: "send"
        case .wait: "wait"
        case .receive: "receive"
        }
    }
}
