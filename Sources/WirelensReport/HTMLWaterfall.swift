import WirelensCore

/// An SVG waterfall of a run's transactions in lanes, one lane per connection (libcurl's number and 4-tuple),
/// each bar coloured by phase with a hover title giving the transaction's numbers. Transactions that overlap on
/// one connection (HTTP/2 streams) stack in rows inside their lane.
struct HTMLWaterfall {
    /// The width of the drawing in SVG units (it scales to the page).
    static let width = 1200.0
    static let labelWidth = 210.0
    static let rowHeight = 12.0
    static let rowGap = 3.0
    static let lanePadding = 5.0
    static let axisHeight = 26.0

    /// One lane: a connection (nil for transactions that never had one) and its transactions in rows.
    struct Lane {
        var key: Summary.ConnectionKey?
        var label: String
        var rows: [[TransactionMetrics]]
    }

    /// The lanes of `tasks`, in order of their first transaction's start.
    static func lanes(_ tasks: [TaskRecord]) -> [Lane] {
        var order: [Summary.ConnectionKey?] = []
        var byKey: [Summary.ConnectionKey?: [TransactionMetrics]] = [:]
        for task in tasks {
            for tx in task.transactions {
                let key = Summary.ConnectionKey(tx)
                if byKey[key] == nil { order.append(key) }
                byKey[key, default: []].append(tx)
            }
        }
        let lanes = order.map { key -> Lane in
            let txs = (byKey[key] ?? []).sorted { $0.timeline.fetchStart < $1.timeline.fetchStart }
            var rows: [[TransactionMetrics]] = []
            var rowEnds: [Int64] = []
            for tx in txs {
                // A queued transaction is not on its connection yet: it takes its row from its first network step.
                let start = onConnection(tx)
                if let free = rowEnds.firstIndex(where: { $0 <= start + packingSlack }) {
                    rows[free].append(tx)
                    rowEnds[free] = end(of: tx)
                } else {
                    rows.append([tx])
                    rowEnds.append(end(of: tx))
                }
            }
            return Lane(key: key, label: label(key, first: txs.first), rows: rows)
        }
        let start = { (lane: Lane) in lane.rows.first?.first?.timeline.fetchStart ?? 0 }
        return lanes.sorted { start($0) < start($1) }
    }

    /// µs by which a transaction may overlap the previous one in its row (timestamps of one connection's
    /// consecutive transactions touch).
    static let packingSlack: Int64 = 500

    /// When a transaction began to use its connection: its first DNS, connect or request instant.
    static func onConnection(_ tx: TransactionMetrics) -> Int64 {
        tx.timeline.domainLookupStart ?? tx.timeline.connectStart ?? tx.timeline.requestStart ?? tx.timeline.fetchStart
    }

    /// Where a transaction ends: its last response byte, or its start plus its total.
    static func end(of tx: TransactionMetrics) -> Int64 {
        max(tx.timeline.responseEnd ?? 0, tx.timeline.fetchStart + tx.phases.total)
    }

    /// "#3 :54012 → 127.0.0.1:8080", or "no connection".
    static func label(_ key: Summary.ConnectionKey?, first: TransactionMetrics?) -> String {
        guard let key else { return "no connection" }
        let id = key.id.map { "#\($0) " } ?? ""
        let remote = "\(key.remoteAddress ?? "?"):\(key.remotePort.map(String.init) ?? "?")"
        return "\(id):\(key.localPort) → \(remote)"
    }

    /// The waterfall of `tasks` as an `<svg>` element.
    static func svg(_ tasks: [TaskRecord]) -> String {
        let lanes = lanes(tasks)
        let all = lanes.flatMap { $0.rows.flatMap { $0 } }
        guard let t0 = all.map(\.timeline.fetchStart).min(), let t1 = all.map(end(of:)).max() else {
            return "<p class=\"note\">No transactions to draw.</p>"
        }
        let span = Double(max(t1 - t0, 1))
        let plot = width - labelWidth - 10
        let x = { (t: Int64) in labelWidth + Double(t - t0) / span * plot }
        var y = axisHeight
        var body = ""
        for (i, lane) in lanes.enumerated() {
            let height = Double(lane.rows.count) * (rowHeight + rowGap) - rowGap + 2 * lanePadding
            let cls = lane.key == nil ? "lane-none" : "lane"
            body += "<g class=\"\(cls)\">"
            body += "<rect class=\"band\" x=\"0\" y=\"\(HTMLText.px(y))\" width=\"\(HTMLText.px(width))\" "
                + "height=\"\(HTMLText.px(height))\" fill=\"\(i % 2 == 0 ? "#f6f8fa" : "#ffffff")\"/>"
            let proto = lane.rows.first?.first?.networkProtocolName.map { ", \($0)" } ?? ""
            let count = lane.rows.reduce(0) { $0 + $1.count }
            body += "<text class=\"lane-label\" x=\"6\" y=\"\(HTMLText.px(y + lanePadding + rowHeight - 2))\">"
                + "<title>\(HTMLText.escape(lane.label + proto)): \(ReportText.count(count, "transaction"))</title>"
                + HTMLText.escape(lane.label) + "</text>"
            // Queue waits first, thin, so that a queued transaction's wait never hides the bar it waited behind.
            for pass in [true, false] {
                for (r, row) in lane.rows.enumerated() {
                    let top = y + lanePadding + Double(r) * (rowHeight + rowGap)
                    for tx in row { body += bar(tx, top: top, x: x, queueOnly: pass) }
                }
            }
            body += "</g>"
            y += height + 2
        }
        let total = y + 4
        var axis = ""
        let spanMs = span / 1000
        let step = HTMLText.niceStep(range: spanMs, maxTicks: 10)
        var tick = 0.0
        while tick <= spanMs + 1e-9 {
            let px = labelWidth + tick / spanMs * plot
            axis += "<line x1=\"\(HTMLText.px(px))\" y1=\"\(HTMLText.px(axisHeight - 4))\" x2=\"\(HTMLText.px(px))\" "
                + "y2=\"\(HTMLText.px(total))\" class=\"grid\"/>"
            axis += "<text class=\"tick\" x=\"\(HTMLText.px(px))\" y=\"\(HTMLText.px(axisHeight - 8))\" "
                + "text-anchor=\"middle\">\(HTMLText.tick(tick)) ms</text>"
            tick += step
        }
        axis += "<text class=\"axis-title\" x=\"6\" y=\"\(HTMLText.px(axisHeight - 8))\">Connection</text>"
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"waterfall\" viewBox=\"0 0 \(HTMLText.px(width)) "
            + "\(HTMLText.px(total))\" width=\"100%\" role=\"img\">" + axis + body + "</svg>"
    }

    /// One transaction's bar: a rect per phase, grouped under a hover title with its numbers.
    /// With `queueOnly`, only the queue wait, drawn as a thin line; otherwise every other phase.
    static func bar(_ tx: TransactionMetrics, top: Double, x: (Int64) -> Double, queueOnly: Bool) -> String {
        var rects = ""
        var cursor = tx.timeline.fetchStart
        var parts: [String] = []
        for phase in WaterfallPhase.allCases {
            guard let duration = phase.duration(in: tx.phases) else { continue }
            let start = phase.start(in: tx.timeline) ?? cursor
            cursor = start + duration
            parts.append("\(phase.shortLabel) \(ReportText.millis(Double(duration) / 1000))")
            let left = x(start)
            let w = max(x(start + duration) - left, duration > 0 ? 0.6 : 0)
            guard w > 0, (phase == .queue) == queueOnly else { continue }
            let (y, h) = phase == .queue ? (top + rowHeight / 2 - 2, 4.0) : (top, rowHeight)
            rects += "<rect x=\"\(HTMLText.px(left))\" y=\"\(HTMLText.px(y))\" width=\"\(Format.fixed(w, digits: 2))\" "
                + "height=\"\(HTMLText.px(h))\" fill=\"\(phase.cssColor)\"/>"
        }
        var title = "\(tx.method) \(tx.url)"
        title += tx.statusCode.map { " → \($0)" } ?? ""
        title += "\ntotal \(ReportText.millis(Double(tx.phases.total) / 1000)) ms: " + parts.joined(separator: ", ") + " ms"
        if tx.requestBodyBytes > 0 {
            title += "\nsent \(ByteSize.format(tx.requestBodyBytes))"
                + (tx.uploadSpeed.map { " at \(ByteSize.formatRate($0))" } ?? "")
        }
        if tx.responseBodyBytes > 0 {
            title += "\nreceived \(ByteSize.format(tx.responseBodyBytes))"
                + (tx.downloadSpeed.map { " at \(ByteSize.formatRate($0))" } ?? "")
        }
        title += "\n" + (tx.reusedConnection ? "reused connection" : tx.openedConnection ? "new connection" : "no connection")
        if let error = tx.error { title += "\nerror: \(error.errorClass.rawValue): \(error.message)" }
        guard !rects.isEmpty else { return "" }
        let cls = queueOnly ? "tx queue" : tx.error == nil ? "tx" : "tx failed"
        return "<g class=\"\(cls)\"><title>\(HTMLText.escape(title))</title>\(rects)</g>"
    }

    /// The legend: a swatch and a name per phase.
    static var legend: String {
        "<div class=\"legend\">" + WaterfallPhase.allCases.map {
            "<span><i style=\"background:\($0.cssColor)\"></i>\(HTMLText.escape($0.label))</span>"
        }.joined() + "</div>"
    }
}
