import WirelensCore

/// Formatting shared by the text views: errors, connections, milliseconds, counts and key-value lines.
enum ReportText {
    /// The width of the key column in `key  value` lines.
    static let keyWidth = 14

    /// `  key           value`, wrapped to the line width with the value column kept.
    static func keyValue(_ key: String, _ value: String) -> [String] {
        TextLayout.wrap(value, firstPrefix: "  " + TextLayout.padRight(key, keyWidth),
                        restPrefix: String(repeating: " ", count: 2 + keyWidth))
    }

    /// `  key           item, item, item`, wrapped between items.
    static func keyList(_ key: String, _ items: [String], style: ANSIStyle = ANSIStyle(enabled: false),
                        tone: ANSIStyle.Tone? = nil) -> [String] {
        let lines = TextLayout.fill(items.isEmpty ? ["none"] : items, separator: ", ",
                                    firstPrefix: "  " + TextLayout.padRight(key, keyWidth),
                                    restPrefix: String(repeating: " ", count: 2 + keyWidth))
        guard let tone, !items.isEmpty else { return lines }
        return lines.map { line in
            let indent = line.prefix(2 + keyWidth)
            return String(indent) + style.paint(String(line.dropFirst(2 + keyWidth)), tone)
        }
    }

    /// `timeout.idle (curl 28): Operation timed out`, with the message made safe for a terminal.
    static func error(_ error: TransferError) -> String {
        let code = error.curlCode.map { " (curl \($0))" } ?? ""
        return "\(error.errorClass.rawValue)\(code): \(TextLayout.sanitize(error.message))"
    }

    /// `address:port`, with an IPv6 address in brackets.
    static func endpoint(_ address: String?, _ port: Int?) -> String? {
        guard let address else { return nil }
        let host = address.contains(":") ? "[\(address)]" : address
        return port.map { "\(host):\($0)" } ?? host
    }

    /// How the transaction got its connection: `new connection #3 127.0.0.1:54321 → 127.0.0.1:8080`.
    static func connection(_ tx: TransactionMetrics) -> String {
        let number = tx.connectionId.map { " #\($0)" } ?? ""
        var ends = ""
        let local = endpoint(tx.localAddress, tx.localPort)
        let remote = endpoint(tx.remoteAddress, tx.remotePort)
        if local != nil || remote != nil {
            ends = " \(local ?? "?") → \(remote ?? "?")"
        }
        let proxy = tx.proxyConnection ? " via proxy" : ""
        if tx.reusedConnection { return "reused connection\(number)\(ends)\(proxy)" }
        if tx.openedConnection { return "new connection\(number)\(ends)\(proxy)" }
        if tx.timeline.connectStart != nil { return "connection not established\(ends)\(proxy)" }
        return "no connection\(proxy)"
    }

    /// How the transaction's name was resolved, or nil when no resolver ran: `DNS over https (DoH answers after
    /// 41.2 ms)`, `DNS over udp (system resolver)`.
    static func resolution(_ tx: TransactionMetrics) -> String? {
        guard let how = tx.domainResolutionProtocol else { return nil }
        switch how {
        case .https:
            let ended = tx.phases.dns == nil ? "DoH failed after" : "DoH answers after"
            return "DNS over https" + (tx.dohDuration.map { " (\(ended) \(DurationText.format(micros: $0)))" } ?? "")
        case .udp, .tcp: return "DNS over \(how.rawValue) (system resolver)"
        }
    }

    /// The transaction's Multipath TCP connection, or nil on a plain TCP socket: `2 subflows: 198.18.1.1:40001 →
    /// 198.18.2.1:8080 66% of the body, rtt 12.1 ms, network; …` (each subflow's own verdict with two or more), or
    /// that the server did not negotiate it.
    static func multipath(_ tx: TransactionMetrics) -> String? {
        guard let mptcp = tx.mptcp else { return nil }
        guard mptcp.negotiated else { return "not negotiated: the connection fell back to plain TCP" }
        let subflows = mptcp.subflows.map { s in
            let ends = "\(endpoint(s.localAddress, s.localPort) ?? "?") → \(endpoint(s.remoteAddress, s.remotePort) ?? "?")"
            let share = s.bodyShare.map { " \(Format.fixed($0 * 100, digits: 0))% of the body," } ?? ""
            return TextLayout.sanitize(ends) + share + " rtt \(DurationText.format(micros: Int64(s.rtt)))"
                + (s.verdict.map { ", \($0.rawValue)" } ?? "")
        }
        return count(mptcp.subflows.count, "subflow") + (subflows.isEmpty ? "" : ": " + subflows.joined(separator: "; "))
    }

    /// Milliseconds for a table column: more fraction digits for small values, at most 7 characters up to 10⁷ ms.
    static func millis(_ value: Double) -> String {
        let magnitude = abs(value)
        let digits = magnitude < 10 ? 3 : magnitude < 1000 ? 2 : magnitude < 100_000 ? 1 : 0
        return Format.fixed(value, digits: digits)
    }

    /// `1 redirect`, `2 redirects`.
    static func count(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? singular : (plural ?? singular + "s"))"
    }

    /// A duration given in ms, formatted like `DurationText.format(micros:)`.
    static func duration(ms: Double) -> String {
        DurationText.format(micros: Int64((ms * 1000).rounded()))
    }
}
