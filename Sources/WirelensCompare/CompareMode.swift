import WirelensCore

/// How a compared configuration talks to the server: HTTP/1.1 with keep-alive, HTTP/1.1 with a fresh
/// connection per transaction, HTTP/2 multiplexed, or HTTP/1.1 with keep-alive over Multipath TCP.
public enum CompareMode: String, Sendable, Equatable, Codable, CaseIterable {
    case h1
    case h1Fresh = "h1-fresh"
    case h2
    case mptcp

    /// Parses `--modes h1,h1-fresh,h2,mptcp`; duplicates are refused.
    public static func parseList(_ text: String) throws(CompareParseError) -> [CompareMode] {
        var modes: [CompareMode] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingSpaces.lowercased()
            guard let mode = CompareMode(rawValue: name) else {
                throw CompareParseError("--modes: '\(name)' is not a mode; give some of h1, h1-fresh, h2, mptcp")
            }
            guard !modes.contains(mode) else { throw CompareParseError("--modes: '\(name)' is given twice") }
            modes.append(mode)
        }
        return modes
    }

    /// `base` set for this mode and `limit`: tasks in flight and connections per host equal to the limit, the
    /// HTTP version (HTTP/2 over TLS for https URLs, prior knowledge for http ones), reuse, multiplexing, and
    /// Multipath TCP sockets (`mptcp`: h1's keep-alive HTTP/1.1 with `--mptcp`).
    public func options(base: ProbeOptions, limit: Int, https: Bool) -> ProbeOptions {
        var o = base
        o.concurrency = limit
        o.maxHostConnections = limit
        switch self {
        case .h1:
            o.httpVersion = .http1_1
            o.reuseConnections = true
        case .h1Fresh:
            o.httpVersion = .http1_1
            o.reuseConnections = false
        case .h2:
            o.httpVersion = https ? .http2 : .http2PriorKnowledge
            o.reuseConnections = true
            o.multiplex = true
        case .mptcp:
            o.httpVersion = .http1_1
            o.reuseConnections = true
            o.multipath = true
        }
        return o
    }

    /// What the mode means, for reports.
    public var about: String {
        switch self {
        case .h1: "HTTP/1.1, keep-alive"
        case .h1Fresh: "HTTP/1.1, a fresh connection per request"
        case .h2: "HTTP/2, multiplexed"
        case .mptcp: "HTTP/1.1, keep-alive, Multipath TCP"
        }
    }
}
