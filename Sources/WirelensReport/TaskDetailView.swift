import WirelensCore

/// The text view of a run with one task: its outcome, then an httpstat-style block per transaction.
///
/// Every transaction (the first request, each redirect hop, each retry) gets a header with its request,
/// status, protocol and connection, and a waterfall of its phases on a common time axis.
struct TaskDetailView {
    let style: ANSIStyle
    var barWidth = Waterfall.defaultWidth

    /// Columns before the bar: indent, label, space, duration, two spaces.
    private static let durationWidth = 8
    private static var barIndent: Int { 2 + WaterfallPhase.labelWidth + 1 + durationWidth + 2 }

    /// The lines of the view.
    func lines(for task: TaskRecord) -> [String] {
        var out = [style.paint(TextLayout.sanitize("\(task.method) \(Redactor.url(task.url))"), .bold)]
        out += ReportText.keyValue("Result", outcome(of: task))
        if let error = task.error {
            out += ReportText.keyValue("Error", ReportText.error(error)).map { style.paint($0, .red) }
        }
        for (index, tx) in task.transactions.enumerated() {
            out.append("")
            out += transactionLines(tx, number: index + 1, of: task.transactions.count)
        }
        return out
    }

    /// `200 in 4.30s, 3 transactions (1 redirect, 1 retry)`; redirects and retries only when there were some.
    private func outcome(of task: TaskRecord) -> String {
        let status = task.statusCode.map { "\($0)" } ?? "no response"
        let verdict = task.succeeded ? status : "failed (\(status))"
        var extra: [String] = []
        if task.redirectCount > 0 { extra.append(ReportText.count(task.redirectCount, "redirect")) }
        if task.retries > 0 { extra.append(ReportText.count(task.retries, "retry", "retries")) }
        return "\(verdict) in \(DurationText.format(micros: task.duration)), "
            + ReportText.count(task.transactions.count, "transaction")
            + (extra.isEmpty ? "" : " (\(extra.joined(separator: ", ")))")
    }

    /// The header, waterfall and totals of one transaction.
    func transactionLines(_ tx: TransactionMetrics, number: Int, of count: Int) -> [String] {
        var out: [String] = []
        let title = "\(number)/\(count) \(tx.kind.rawValue)  \(tx.method) \(Redactor.url(tx.url))"
        out.append(style.paint(TextLayout.sanitize(title), .bold))
        var facts = [tx.statusCode.map { "\($0)" } ?? "no response"]
        if let proto = tx.networkProtocolName { facts.append(TextLayout.sanitize(proto)) }
        if let tls = tx.tlsVersion { facts.append(TextLayout.sanitize(tls)) }
        facts.append(TextLayout.sanitize(ReportText.connection(tx)))
        out += TextLayout.fill(facts, separator: "  ", firstPrefix: "  ", restPrefix: "  ")

        let waterfall = Waterfall(tx, width: barWidth)
        out.append("")
        out.append(String(repeating: " ", count: Self.barIndent + 1) + "0"
                   + TextLayout.padLeft(DurationText.format(micros: waterfall.scale), barWidth - 1))
        for row in waterfall.rows {
            out.append(rowLine(row))
        }
        out.append(phaseColumns("Total", DurationText.format(micros: tx.phases.total)))

        if tx.requestHeaderBytes + tx.requestBodyBytes > 0 {
            out += ReportText.keyValue("Sent", transfer(body: tx.requestBodyBytes, headers: tx.requestHeaderBytes,
                                                        speed: tx.uploadSpeed))
        }
        if tx.responseHeaderBytes + tx.responseBodyBytes > 0 {
            out += ReportText.keyValue("Received", transfer(body: tx.responseBodyBytes, headers: tx.responseHeaderBytes,
                                                            speed: tx.downloadSpeed))
        }
        if let wire = tx.responseBodyWireBytes, wire != tx.responseBodyBytes {
            out += ReportText.keyValue("Decoded", "\(ByteSize.format(tx.responseBodyBytes)) delivered from "
                                       + "\(ByteSize.format(wire)) on the wire (--compressed)")
        }
        if let resolution = ReportText.resolution(tx) { out += ReportText.keyValue("Resolved", resolution) }
        if let multipath = ReportText.multipath(tx) { out += ReportText.keyValue("MPTCP", multipath) }
        if let wait = tx.expectContinueWait {
            out += ReportText.keyValue("100-continue", "waited \(DurationText.format(micros: wait)) "
                                       + "for 100 Continue before sending the body")
        }
        if let wait = tx.retryWait {
            var text = "waited \(DurationText.format(micros: wait)) before this attempt"
            if let asked = tx.retryAfter {
                text += asked > wait ? " (the server's Retry-After asked \(DurationText.format(micros: asked)): capped)"
                    : " (the server's Retry-After)"
            }
            out += ReportText.keyValue("Retry wait", text)
        }
        if let error = tx.error {
            out += ReportText.keyValue("Error", ReportText.error(error)).map { style.paint($0, .red) }
        }
        out += DiagnosisView(style: style).lines(for: tx)
        return out
    }

    /// `30.0 MiB body + 210 B headers at 15.0 MB/s`.
    private func transfer(body: Int64, headers: Int64, speed: Double?) -> String {
        "\(ByteSize.format(body)) body + \(ByteSize.format(headers)) headers"
            + (speed.map { " at \(ByteSize.formatRate($0))" } ?? "")
    }

    /// `  Label                  duration  `, the part of a row before its bar.
    private func phaseColumns(_ label: String, _ duration: String) -> String {
        "  " + TextLayout.padRight(label, WaterfallPhase.labelWidth) + " "
            + TextLayout.padLeft(duration, Self.durationWidth)
    }

    /// One waterfall row: label, duration (or "—"), and the bar between two rules.
    private func rowLine(_ row: Waterfall.Row) -> String {
        let rule = style.paint("│", .dim)
        guard let duration = row.duration, let columns = row.columns else {
            var inside = String(repeating: " ", count: barWidth)
            if let column = row.unfinishedAt {
                let note = "· did not finish"
                let start = min(column, max(0, barWidth - note.count))
                inside = TextLayout.padRight(String(repeating: " ", count: start) + note, barWidth)
                inside = style.paint(inside, .red)
            }
            return phaseColumns(row.phase.label, "—") + "  " + rule + inside + rule
        }
        let bar = String(repeating: row.sliver ? "▏" : "█", count: columns.count)
        let inside = String(repeating: " ", count: columns.lowerBound) + style.paint(bar, row.phase.tone)
            + String(repeating: " ", count: barWidth - columns.upperBound)
        return phaseColumns(row.phase.label, DurationText.format(micros: duration)) + "  " + rule + inside + rule
    }
}
