import WirelensCompare
import WirelensCore

/// Renders a probe report or a comparison as one self-contained HTML page: inline CSS and SVG drawn here,
/// no script and no fetch. The markup is XHTML-compatible, so an XML parser reads it.
package enum HTMLRenderer {
    /// A probe (or upload) report: its summary figures, phase table and the waterfall by connection.
    package static func render(_ report: Report) -> String {
        let s = report.summary
        var body = "<h1>Wirelens report</h1>"
        body += "<p class=\"sub\">\(HTMLText.escape(report.command)) · \(HTMLText.escape(report.configuration.urls.prefix(3).joined(separator: ", ")))"
            + " · \(HTMLText.escape(WallClock.iso8601(micros: report.startedAt)))</p>"
        if report.interrupted { body += "<p class=\"warn\">Interrupted: this report covers the tasks that ended.</p>" }
        var cards: [(String, String)] = [
            ("Tasks", "\(s.succeeded) ok, \(s.failed) failed"),
            ("Wall time", ReportText.duration(ms: s.wallTimeMs)),
            ("Upload", "\(ByteSize.format(s.requestBodyBytes)) · \(ByteSize.formatRate(s.uploadBytesPerSecond))"),
            ("Download", "\(ByteSize.format(s.responseBodyBytes)) · \(ByteSize.formatRate(s.downloadBytesPerSecond))"),
            ("Connections", "\(s.connections.opened) opened, \(s.connections.reused) reused, at most \(s.connections.maxOpenAtOnce) at once"),
        ]
        if let upload = report.upload, let rate = upload.effectiveBytesPerSecond {
            cards.append(("Segmented upload", "\(upload.segmentsTotal) segments, \(upload.peakInFlight ?? upload.parallel) in flight at most · \(ByteSize.formatRate(rate))"))
        }
        body += "<div class=\"cards\">" + cards.map { "<div class=\"card\"><b>\(HTMLText.escape($0.0))</b><span>\(HTMLText.escape($0.1))</span></div>" }.joined() + "</div>"
        body += "<h2>Waterfall by connection</h2>" + HTMLWaterfall.legend + HTMLWaterfall.svg(report.tasks)
        body += "<h2>Phases (ms)</h2>" + table(phaseTable(s))
        body += HTMLDiagnosis.section(report.tasks, detail: report.detail)
        if !report.caveats.isEmpty {
            body += "<h2>Caveats</h2><ul class=\"caveats\">" + report.caveats.map { "<li>\(HTMLText.escape($0.text))</li>" }.joined() + "</ul>"
        }
        return page(title: "Wirelens report", body: body)
    }

    /// A comparison: the recommendation, throughput and p90 latency against the limit (one line per mode), the
    /// summary tables, and a waterfall of each configuration's last run.
    package static func render(_ document: CompareDocument) -> String {
        var body = "<h1>Wirelens compare</h1>"
        body += "<p class=\"sub\">\(HTMLText.escape(document.url)) · workload \(HTMLText.escape(document.workload)) · "
            + "\(document.repetitions) repetition\(document.repetitions == 1 ? "" : "s"), interleaved · "
            + "\(HTMLText.escape(document.startedAt))</p>"
        if document.interrupted { body += "<p class=\"warn\">Interrupted: the comparison covers the runs that finished.</p>" }
        let unit = document.results.first?.throughputUnit ?? "B/s"
        for rec in document.recommendations {
            let head = rec.limit.map {
                "\(HTMLText.escape(rec.mode.rawValue)): limit \(HTMLText.escape($0.display))</b> · "
                    + HTMLText.escape(CompareRecommendation.rate(rec.throughput, unit))
            } ?? "\(HTMLText.escape(rec.mode.rawValue)): no limit</b>"
            body += "<div class=\"rec\"><b>\(head) · "
                + "<span class=\"regime\">\(HTMLText.escape(rec.regime))</span><br/>\(HTMLText.escape(rec.reason)).</div>"
        }
        body += "<div class=\"charts\">" + throughputChart(document).svg + latencyChart(document).svg + "</div>"
        body += "<h2>Results (median over repetitions)</h2>" + table(CompareTable.results(document))
        body += CompareTable.failureLines(document).map { "<p class=\"warn\">\(HTMLText.escape($0))</p>" }.joined()
        body += "<h2>Waterfalls by connection (last repetition of each configuration)</h2>" + HTMLWaterfall.legend
        let recommended = Set(document.recommendations.compactMap { rec in rec.limit.map { "\(rec.mode.rawValue) \($0.label)" } })
        for result in document.results {
            guard let last = document.reports(mode: result.mode, limit: result.limit.label).last else { continue }
            let open = recommended.contains("\(result.mode.rawValue) \(result.limit.label)")
            body += "<details\(open ? " open=\"open\"" : "")><summary>\(HTMLText.escape(result.mode.rawValue)) @ "
                + "\(HTMLText.escape(result.limit.display)): \(result.failure == nil ? "" : CompareTable.failedMark + " ")"
                + "\(HTMLText.escape(CompareRecommendation.rate(result.throughput, unit))), "
                + "\(ReportText.count(last.summary.connections.opened, "connection")) opened</summary>" + HTMLWaterfall.svg(last.tasks) + "</details>"
        }
        body += "<h2>Median of each phase (ms)</h2>" + table(CompareTable.phases(document))
        return page(title: "Wirelens compare", body: body)
    }

    /// Throughput against the limit, one line per mode, in KB/s or MB/s (or req/s).
    static func throughputChart(_ document: CompareDocument) -> HTMLChart {
        let unit = document.results.first?.throughputUnit ?? "B/s"
        let top = document.results.map(\.throughput).max() ?? 0
        let (divisor, label) = unit != "B/s" ? (1.0, unit) : top >= 1e6 ? (1e6, "MB/s") : (1e3, "KB/s")
        return chart(document, title: "Throughput against the connection limit", yTitle: "Throughput (\(label))") {
            ($0.throughput / divisor, CompareRecommendation.rate($0.throughput, unit))
        }
    }

    /// p90 task latency against the limit, one line per mode, in ms.
    static func latencyChart(_ document: CompareDocument) -> HTMLChart {
        chart(document, title: "p90 latency against the connection limit", yTitle: "p90 task latency (ms)") {
            let v = $0.latencyMs?.p90 ?? 0
            return (v, "\(ReportText.millis(v)) ms")
        }
    }

    private static func chart(_ document: CompareDocument, title: String, yTitle: String,
                              value: (CompareResult) -> (Double, String)) -> HTMLChart {
        let series = document.modes.enumerated().map { i, mode in
            HTMLChart.Series(name: mode.rawValue, color: HTMLChart.color(ofSeries: i), points: document.results
                .filter { $0.mode == mode }.sorted { $0.limit.value < $1.limit.value }
                .map { r in let (y, text) = value(r); return (Double(r.limit.value), y, "\(r.limit.display): \(text)") })
        }
        return HTMLChart(title: title, xTitle: "Connection limit (connections per host, tasks in flight)",
                         yTitle: yTitle, series: series)
    }

    /// The phase table of a summary as a CompareTable (count, p50, p90, p99, max per phase).
    static func phaseTable(_ s: Summary) -> CompareTable {
        let rows = (WaterfallPhase.allCases.map { ($0.label, $0.rawValue) } + [("Total", "total")]).map { label, name in
            [label] + (s.phases[name].map { st in ["\(st.count)"] + [st.p50, st.p90, st.p99, st.max].map(ReportText.millis) }
                ?? ["0", "—", "—", "—", "—"])
        }
        return CompareTable(headers: ["Phase", "count", "p50", "p90", "p99", "max"], rows: rows,
                            numeric: [false, true, true, true, true, true])
    }

    /// A table as HTML.
    static func table(_ t: CompareTable) -> String {
        let head = t.headers.indices.map { "<th\(t.numeric[$0] ? " class=\"num\"" : "")>\(HTMLText.escape(t.headers[$0]))</th>" }
        let rows = t.rows.map { row in
            "<tr>" + row.indices.map { "<td\(t.numeric[$0] ? " class=\"num\"" : "")>\(HTMLText.escape(row[$0]))</td>" }.joined() + "</tr>"
        }
        return "<table><thead><tr>\(head.joined())</tr></thead><tbody>\(rows.joined())</tbody></table>"
    }

    /// The page around `body`, with the stylesheet.
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>\(HTMLText.escape(title))</title>
        <style>
        \(css)
        </style></head>
        <body><main>\(body)<p class="foot">Written by wirelens \(WirelensVersion.current). Hover a bar or a point for its numbers.</p></main></body></html>

        """
    }

    static let css = """
        body { margin: 0; background: #eef1f5; color: #1f2933; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
        main { max-width: 1220px; margin: 0 auto; padding: 18px 24px 32px; background: #ffffff; min-height: 100vh; box-sizing: border-box; }
        h1 { font-size: 22px; margin: 0 0 2px; }
        h2 { font-size: 16px; margin: 22px 0 8px; border-bottom: 1px solid #d8dee6; padding-bottom: 4px; }
        .sub { color: #52606d; margin: 0 0 12px; word-break: break-all; }
        .warn { background: #fff4d6; border-left: 4px solid #f0b429; padding: 6px 10px; }
        .rec { background: #e8f4ff; border-left: 4px solid #2563eb; padding: 8px 12px; margin: 8px 0; }
        .regime { color: #334e68; font-weight: 600; }
        .cards { display: flex; flex-wrap: wrap; gap: 10px; }
        .card { border: 1px solid #d8dee6; border-radius: 6px; padding: 8px 12px; min-width: 170px; }
        .card b { display: block; font-size: 12px; color: #52606d; font-weight: 600; }
        .charts { display: flex; gap: 12px; margin-top: 10px; }
        .charts svg { flex: 1 1 0; border: 1px solid #d8dee6; border-radius: 6px; background: #ffffff; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
        th, td { padding: 4px 8px; border-bottom: 1px solid #e4e7eb; text-align: left; white-space: nowrap; }
        th { background: #f5f7fa; font-weight: 600; }
        .num { text-align: right; }
        tbody tr:hover { background: #f0f6ff; }
        .legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 4px 0 6px; font-size: 13px; }
        .legend i { display: inline-block; width: 14px; height: 10px; margin-right: 5px; border-radius: 2px; }
        svg text { font-family: system-ui, "DejaVu Sans", sans-serif; fill: #323f4b; }
        .waterfall { border: 1px solid #d8dee6; border-radius: 6px; }
        .lane-label { font-size: 11px; font-family: "DejaVu Sans Mono", monospace; }
        .tick { font-size: 11px; fill: #52606d; }
        .axis-title { font-size: 12px; font-weight: 600; }
        .chart-title { font-size: 14px; font-weight: 600; }
        .why td { white-space: normal; }
        h3 { font-size: 14px; margin: 16px 0 4px; font-family: "DejaVu Sans Mono", monospace; }
        .grid { stroke: #e4e7eb; stroke-width: 1; }
        .axis { stroke: #7b8794; stroke-width: 1; }
        .tx:hover rect { stroke: #1f2933; stroke-width: 0.8; }
        .tx.failed rect { stroke: #d64545; stroke-width: 1.2; }
        details { margin: 6px 0; }
        summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
        .caveats { color: #52606d; }
        .foot { color: #7b8794; font-size: 12px; margin-top: 24px; }
        .note { color: #7b8794; }
        """
}
