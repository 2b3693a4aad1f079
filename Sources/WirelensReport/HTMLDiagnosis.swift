import WirelensCore

/// The "why" part of the HTML report: each verdict with the transactions and the time it holds, and per connection
/// the kernel's delivery rate, congestion window and RTT over time.
enum HTMLDiagnosis {
    /// Connections drawn at most (in order of their first transaction); the table counts every transaction.
    static let connectionLimit = 8

    /// The section, or an empty string when no transaction has a diagnosis; `detail` is the report's, whose
    /// `standard` documents hold no samples to draw.
    static func section(_ tasks: [TaskRecord], detail: ReportDetail) -> String {
        let transactions = tasks.flatMap(\.transactions)
        let tally = VerdictTally(transactions)
        guard !tally.rows.isEmpty else { return "" }
        var out = "<h2>Why it took the time it took</h2><div class=\"why\">"
        out += HTMLRenderer.table(CompareTable(
            headers: ["Verdict", "transactions", "time", "the longest one says"],
            rows: tally.rows.map { [$0.verdict.rawValue, "\($0.count)", DurationText.format(micros: $0.time), $0.example] },
            numeric: [false, true, true, false])) + "</div>"
        let lanes = HTMLWaterfall.lanes(tasks).filter { lane in lane.rows.joined().contains { $0.tcp != nil } }
        for lane in lanes.prefix(connectionLimit) {
            out += connection(lane, detail: detail)
        }
        if lanes.count > connectionLimit {
            out += "<p class=\"note\">\(lanes.count - connectionLimit) more connections with kernel facts are not drawn.</p>"
        }
        return out
    }

    /// One connection: its verdicts and three charts of its samples over time (at `standard` without samples, the
    /// verdicts and a note saying why nothing is drawn).
    static func connection(_ lane: HTMLWaterfall.Lane, detail: ReportDetail) -> String {
        let txs = lane.rows.joined().sorted { $0.timeline.fetchStart < $1.timeline.fetchStart }
        // A sample's instant: its transaction's first snapshot was taken when the request was about to start.
        // The bytes that moved between two samples of one transaction give the rate it achieved there.
        var points: [(t: Int64, sample: TCPSample, moved: Double?)] = []
        for tx in txs {
            guard let tcp = tx.tcp else { continue }
            let origin = tx.timeline.requestStart ?? tx.timeline.fetchStart
            let upload = tx.requestBodyBytes >= tx.responseBodyBytes
            var previous: TCPSample?
            for sample in tcp.samples {
                var rate: Double?
                if let previous, sample.at > previous.at,
                   let now = upload ? sample.acked : sample.received, let then = upload ? previous.acked : previous.received {
                    rate = Double(now &- then) / Double(sample.at - previous.at)
                }
                points.append((origin + sample.at, sample, rate))
                previous = sample
            }
        }
        points.sort { $0.t < $1.t }
        let verdicts = VerdictTally(txs).rows.map { "\($0.verdict.rawValue) (\($0.count))" }
        var out = "<h3>\(HTMLText.escape(lane.label)): \(HTMLText.escape(verdicts.joined(separator: ", ")))</h3>"
        guard let t0 = points.first?.t else {
            guard !detail.keepsDebugMembers, !verdicts.isEmpty else { return "" }
            return out + "<p class=\"note\">No kernel samples to draw (a report saved at --detail standard keeps "
                + "none; --detail full does).</p>"
        }
        func series(_ name: String, _ index: Int, _ value: ((t: Int64, sample: TCPSample, moved: Double?)) -> Double?,
                    label: @escaping (Double) -> String) -> HTMLChart.Series {
            HTMLChart.Series(name: name, color: HTMLChart.color(ofSeries: index), points: points.compactMap { p in
                value(p).map { (Double(p.t - t0) / 1e6, $0, label($0)) }
            })
        }
        let megabytes = { (v: Double) in "\(ReportText.millis(v)) MB/s" }
        let charts = [
            // Bytes the peer acknowledged (upload) or that arrived (download) per second between samples: what the
            // connection delivered. The kernel's own estimate (tcpi_delivery_rate) jumps after a window reopens, so
            // it stays in the numbers, not in the drawing.
            HTMLChart(title: "Delivery rate (bytes acknowledged or received)", xTitle: "seconds", yTitle: "MB/s",
                      series: [series("", 0, { $0.moved.map { $0 } }, label: megabytes)]),
            HTMLChart(title: "Congestion window", xTitle: "seconds", yTitle: "segments",
                      series: [series("", 0, { Double($0.sample.congestionWindow) }, label: { "\(Int($0)) segments" })]),
            HTMLChart(title: "Smoothed RTT", xTitle: "seconds", yTitle: "ms",
                      series: [series("", 0, { Double($0.sample.rtt) / 1000 }, label: { "\(ReportText.millis($0)) ms" })]),
        ].map { chart -> String in
            var small = chart
            small.pointsAreCategories = false
            small.height = 220
            return small.svg.replacingOccurrences(of: "class=\"chart\"", with: "class=\"chart tcp\"")
        }
        out += "<div class=\"charts\">" + charts.joined() + "</div>"
        return out
    }
}
