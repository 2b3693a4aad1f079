import WirelensCaptureModel
import WirelensCore

/// Renders a capture analysis for a person at a terminal: the summary, then connection by connection
/// with their HTTP exchanges, then the caveats.
package struct CaptureTextRenderer: Sendable {
    /// Whether to colour the output with ANSI SGR sequences.
    package var color: Bool
    /// Connections listed one by one at most (the first ones of the capture); the JSON report has them all.
    package var connectionLimit: Int
    /// Exchanges listed one by one per connection at most.
    package var exchangeLimit: Int

    /// Connections listed one by one unless told otherwise.
    package static let defaultConnectionLimit = 50
    /// Findings of each wire check (downloads, HTTP/2 uploads) the verification section writes out (its count
    /// covers them all).
    static let findingsListed = 3

    package init(color: Bool, connectionLimit: Int = defaultConnectionLimit, exchangeLimit: Int = 20) {
        self.color = color
        self.connectionLimit = connectionLimit
        self.exchangeLimit = exchangeLimit
    }

    /// The lines of one connection in the report's connection list: a streamed analysis keeps these (bounded by
    /// `exchangeLimit`) instead of the connection with all its exchanges.
    package func connectionLines(_ connection: TCPConnection) -> [String] {
        lines(for: connection, style: ANSIStyle(enabled: color))
    }

    /// The report as text, ending with a newline.
    package func render(_ report: CaptureReport) -> String {
        render(report, listed: report.connections.prefix(connectionLimit).map(connectionLines))
    }

    /// The report as text with its connection list given as `connectionLines` of its first connections.
    package func render(_ report: CaptureReport, listed: [[String]]) -> String {
        let style = ANSIStyle(enabled: color)
        let s = report.summary
        var lines: [String] = []
        lines.append(style.paint("Capture \(TextLayout.sanitize(report.file))", .bold)
            + "  (\(report.linkType.rawValue), snapshot length \(report.snapshotLength)"
            + (report.filter.map { ", filter '\(TextLayout.sanitize($0))'" } ?? "") + ")")
        if let first = report.firstPacketAt, let last = report.lastPacketAt {
            lines += ReportText.keyValue("span", "\(WallClock.iso8601(micros: first)) → \(WallClock.iso8601(micros: last))"
                + " (\(DurationText.format(micros: last - first)))")
        }
        let p = report.packets
        lines += ReportText.keyValue("packets", "\(p.total) (\(p.tcp) TCP, \(p.other) other, \(p.undecodable) undecodable"
            + ", \(p.cutBySnapshot) cut by the snapshot length)")
        if let error = report.readError {
            lines += TextLayout.wrap("Reading stopped early: \(TextLayout.sanitize(error))", firstPrefix: "", restPrefix: "  ")
                .map { style.paint($0, .yellow) }
        }
        if report.interrupted {
            lines.append(style.paint("Interrupted: the analysis covers the packets read before the signal", .yellow))
        }
        if let verification = report.verification {
            lines.append("")
            lines += verificationLines(verification, style: style)
        }
        lines.append("")
        lines.append(style.paint("Summary", .bold))
        lines += ReportText.keyValue("connections", "\(s.connections) (\(s.connectionsWithHandshake) with handshake), "
            + "at most \(s.maxConcurrentConnections) at once")
        // Pipelining is about HTTP/1.x: not printed for a capture of HTTP/2 and encrypted exchanges only.
        let pipelining = s.http1Exchanges > 0 || s.exchanges == 0
            ? "\(s.pipelinedRequests) pipelined (depth up to \(s.maxPipelineDepth)), " : ""
        let inferred = s.inferredExchanges > 0 ? ", \(s.inferredExchanges) of them inferred from TLS records" : ""
        lines += ReportText.keyValue("exchanges", "\(s.exchanges) (\(s.completeExchanges) complete), "
            + pipelining + "up to \(s.maxExchangesPerConnection) per connection" + inferred)
        lines += ReportText.keyValue("bytes", "client → server \(ByteSize.format(s.clientBytes)), "
            + "server → client \(ByteSize.format(s.serverBytes))")
        let trouble = "\(s.retransmissions) retransmissions, \(s.outOfOrder) out of order, \(s.zeroWindow) zero window, "
            + "\(s.windowFull) window full, \(s.resets) resets, \(s.captureGaps) capture gaps"
        let troubled = s.retransmissions + s.outOfOrder + s.zeroWindow + s.windowFull + s.resets + s.captureGaps > 0
        lines += ReportText.keyValue("tcp", troubled ? style.paint(trouble, .yellow) : trouble)
        for server in s.servers {
            lines += ReportText.keyValue("server", "\(server.server): \(ReportText.count(server.connections, "connection")), "
                + "at most \(server.maxConcurrent) at once, \(ReportText.count(server.exchanges, "exchange"))")
        }
        if !listed.isEmpty {
            lines.append("")
            lines.append(style.paint("Connections", .bold))
            for connection in listed { lines += connection }
            // A streamed analysis lists only the first connections: the summary counts them all.
            let unlisted = max(report.connections.count, s.connections) - listed.count
            if unlisted > 0 {
                lines.append("  … \(unlisted) more connections (see --format json)")
            }
        }
        lines += CaveatsView(style: style).lines(for: report.caveats)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The verification section alone, ending with a newline (for the probe's live capture).
    package func render(_ verification: ProbeVerification) -> String {
        verificationLines(verification, style: ANSIStyle(enabled: color)).joined(separator: "\n") + "\n"
    }

    /// Disagreements first, then what the wire confirmed.
    private func verificationLines(_ v: ProbeVerification, style: ANSIStyle) -> [String] {
        var lines: [String] = []
        let unverified = v.notVerifiable.reduce(0) { $0 + $1.transactions }
        if v.disagreements.isEmpty && unverified > 0 {
            lines.append(style.paint("Verification: \(unverified) of \(v.transactions.count) transactions not "
                + "verifiable without keys", .bold))
        } else if v.disagreements.isEmpty {
            lines.append(style.paint("Verification: the wire agrees with the probe report", .bold))
        } else {
            lines.append(style.paint("Verification: \(ReportText.count(v.disagreements.count, "disagreement")) "
                + "with the probe report", .bold))
            for text in v.disagreements {
                lines += TextLayout.wrap(TextLayout.sanitize(text), firstPrefix: "  ✗ ", restPrefix: "    ")
                    .map { style.paint($0, .red) }
            }
        }
        let confirmed = v.transactions.filter { $0.reuseConfirmed == true }.count
        let unknown = v.transactions.filter { $0.reuseConfirmed == nil }.count
        lines += ReportText.keyValue("reuse", "\(confirmed) of \(v.transactions.count) transactions' reuse flags confirmed "
            + "by SYN ownership" + (unknown > 0 ? ", \(unknown) not decidable" : ""))
        let timed = v.transactions.filter { $0.connectAgrees != nil }
        lines += ReportText.keyValue("connect", "\(timed.filter { $0.connectAgrees == true }.count) of \(timed.count) "
            + "connect times agree with the handshake (\(ProbeVerification.toleranceText))")
        lines += ReportText.keyValue("opened", "\(v.connectionsOpenedByProbe) by the probe, \(v.connectionsOnWire) handshakes on the wire")
        for host in v.hosts {
            lines += ReportText.keyValue("host", "\(host.server): at most \(host.maxConcurrent) at once, limit "
                + (host.configuredLimit.map(String.init) ?? "none") + ", \(ReportText.count(host.connections, "connection"))")
        }
        if v.hosts.count > 1 || v.configuredTotalLimit != nil {
            lines += ReportText.keyValue("at once", "at most \(ReportText.count(v.maxConcurrent, "connection")) in all, limit "
                + (v.configuredTotalLimit.map(String.init) ?? "none"))
        }
        let ordered = v.transactions.filter { $0.instantsInOrder != nil }
        if !ordered.isEmpty {
            lines += ReportText.keyValue("order", "\(ordered.filter { $0.instantsInOrder == true }.count) of "
                + "\(ordered.count) transactions' instants in physical order with their packets "
                + "(\(ProbeVerification.orderSlack) µs allowed)")
        }
        lines += wireCheckLines("download", "download verdicts confirmed by the wire",
                                v.transactions.compactMap { t in t.download.map { (t, $0.confirms, $0.finding) } })
        lines += wireCheckLines("h2 window", "HTTP/2 uploads held by the server's window on the wire",
                                v.transactions.compactMap { t in t.h2Window.map { (t, $0.confirms, $0.finding) } })
        for foreign in v.foreignConnections {
            let why = foreign.reason == .beganBeforeRun ? "began before the run" : "not the probe's target"
            lines += ReportText.keyValue("foreign", "#\(foreign.connection) \(foreign.client) → \(foreign.server): \(why), "
                + ReportText.count(foreign.exchanges, "exchange") + " (not checked)")
        }
        if !v.notVerifiable.isEmpty {
            let list = v.notVerifiable.map { "#\($0.connection) (\($0.reason))" }
            lines += TextLayout.wrap("TLS connections not decrypted: " + list.joined(separator: ", ") + "; their "
                + "requests, HTTP/2 streams and concurrency are only inferred (give the client's key log)",
                firstPrefix: "  ", restPrefix: "    ").map { style.paint($0, .yellow) }
        }
        if !v.requestsPerConnection.isEmpty {
            let counts = v.requestsPerConnection.map { "#\($0.connection): \($0.wireExchanges)" }
            lines += TextLayout.fill(counts, separator: ", ", firstPrefix: "  requests/conn ", restPrefix: "                ")
        }
        return lines
    }

    /// A wire check's count line (`key`: how many of the `checks` confirmed `what`), then the first
    /// `findingsListed` findings; nothing without checks.
    private func wireCheckLines(_ key: String, _ what: String,
                                _ checks: [(ProbeVerification.TransactionCheck, Bool, String)]) -> [String] {
        guard !checks.isEmpty else { return [] }
        var lines = ReportText.keyValue(key, "\(checks.filter { $0.1 }.count) of \(checks.count) \(what)")
        for (check, _, finding) in checks.prefix(Self.findingsListed) {
            lines += TextLayout.wrap(TextLayout.sanitize("task \(check.task) transaction \(check.transaction): "
                + finding), firstPrefix: "    ", restPrefix: "      ")
        }
        return lines
    }

    private func lines(for c: TCPConnection, style: ANSIStyle) -> [String] {
        var lines: [String] = []
        var head = "#\(c.index) \(c.client) → \(c.server)"
        if let name = c.applicationProtocol { head += "  \(name)" }
        head += "  \(c.end.rawValue)" + (c.closedBy.map { " by \($0.rawValue)" } ?? "")
        lines.append("  " + style.paint(head, .cyan))
        var facts = ["\(DurationText.format(micros: c.duration))"]
        facts.append(c.handshakeTime.map { "handshake \(DurationText.format(micros: $0))" } ?? "no handshake")
        facts.append("↑ \(ByteSize.format(c.clientToServer.bytes)) in \(c.clientToServer.packets) packets")
        facts.append("↓ \(ByteSize.format(c.serverToClient.bytes)) in \(c.serverToClient.packets) packets")
        if c.idleGapCount > 0 {
            facts.append("\(ReportText.count(c.idleGapCount, "idle gap")), longest \(DurationText.format(micros: c.longestSilence))")
        }
        lines += TextLayout.fill(facts, separator: " · ", firstPrefix: "    ", restPrefix: "    ")
        var problems: [String] = []
        for (d, name) in [(c.clientToServer, "client"), (c.serverToClient, "server")] {
            var items: [String] = []
            if d.retransmissions > 0 { items.append("\(d.retransmissions) retransmitted") }
            if d.outOfOrder > 0 { items.append("\(d.outOfOrder) out of order") }
            if d.zeroWindow > 0 { items.append("\(d.zeroWindow) zero window") }
            if d.windowFull > 0 { items.append("\(d.windowFull) window full") }
            if d.resets > 0 { items.append("\(d.resets) reset") }
            if d.captureGaps > 0 { items.append("\(d.captureGaps) capture gaps (\(ByteSize.format(d.captureGapBytes)))") }
            if !items.isEmpty { problems.append("\(name): " + items.joined(separator: ", ")) }
        }
        if !problems.isEmpty {
            lines += TextLayout.fill(problems, separator: "; ", firstPrefix: "    ", restPrefix: "    ")
                .map { style.paint($0, .yellow) }
        }
        if let tls = c.tls {
            var items = ["SNI \(tls.serverName.map(TextLayout.sanitize) ?? "none")"]
            items.append("ALPN offered \(tls.offeredALPN.isEmpty ? "none" : tls.offeredALPN.joined(separator: ",").sanitized)")
            if let version = tls.version { items.append(version) }
            if let chosen = tls.chosenALPN { items.append("chose \(TextLayout.sanitize(chosen))") }
            if let suite = tls.cipherSuite { items.append(suite) }
            if tls.resumed == true { items.append("resumed") }
            switch tls.decryption {
            case .decrypted: items.append("decrypted")
            case .noKeyLog: items.append("not decrypted (no key log): exchanges inferred")
            default: items.append("not decrypted (\(tls.decryption.rawValue)): exchanges inferred")
            }
            if let note = tls.decryptionNote { items.append(TextLayout.sanitize(note)) }
            lines += TextLayout.fill(items, separator: " · ", firstPrefix: "    TLS ", restPrefix: "        ")
        }
        if let h2 = c.http2 {
            lines.append("    HTTP/2 \(ReportText.count(h2.streams, "stream")), at most \(h2.maxConcurrentStreams) at once, "
                + "\(h2.clientFrames)/\(h2.serverFrames) frames up/down"
                + (h2.resetStreams > 0 ? ", \(h2.resetStreams) reset" : ""))
        }
        for e in c.exchanges.prefix(exchangeLimit) {
            var text = e.inferred
                ? "\(e.index) inferred: ↑ \(ByteSize.format(e.requestBodyBytes)) ↓ \(ByteSize.format(e.responseBodyBytes))"
                : "\(e.index) \(e.method ?? "?") \(TextLayout.sanitize(e.target ?? "?")) → "
                    + (e.statusCode.map(String.init) ?? "no response")
            if let wait = e.wait { text += "  wait \(DurationText.format(micros: wait))" }
            if let start = e.requestStartAt, let end = e.responseEndAt {
                text += "  total \(DurationText.format(micros: end - start))"
            }
            if !e.inferred { text += "  ↓ \(ByteSize.format(e.responseBodyBytes))" }
            if e.pipelined { text += "  pipelined (depth \(e.pipelineDepth))" }
            if e.cutShort {
                text += "  cut short"
            } else if !e.complete {
                text += "  incomplete"
            }
            lines.append("    " + TextLayout.truncated(text, to: TextLayout.lineWidth - 4))
        }
        if c.exchanges.count > exchangeLimit {
            lines.append("    … \(c.exchanges.count - exchangeLimit) more exchanges (see --format json)")
        }
        for note in c.notes {
            lines += TextLayout.wrap(TextLayout.sanitize(note), firstPrefix: "    note: ", restPrefix: "      ")
                .map { style.paint($0, .dim) }
        }
        return lines
    }
}

private extension String {
    /// The text made safe for a terminal.
    var sanitized: String { TextLayout.sanitize(self) }
}
