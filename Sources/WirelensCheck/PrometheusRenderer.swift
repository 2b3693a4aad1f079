import WirelensCore

/// Writes check results as Prometheus exposition text (format 0.0.4), ready for node_exporter's textfile collector
/// and for `serve`'s /metrics.
///
/// Names follow blackbox_exporter where the meaning is the same (`probe_success`, `probe_duration_seconds`,
/// `probe_http_duration_seconds{phase}`, `probe_http_status_code`, `probe_http_version`,
/// `probe_ssl_earliest_cert_expiry`); Wirelens' own figures are `wirelens_*`. Every sample carries the check's
/// name as the `check` label, and the instance's vantage point as the `vantage` label when it has one. A phase that
/// did not happen has no sample (never a 0).
///
/// With `CheckStatistics` (`serve`), each check also has counters of its runs, failures by reason and skipped ticks,
/// and classic histograms of its total time and of each phase (`wirelens_check_*`).
package enum PrometheusRenderer {
    /// The metric families, in output order.
    enum Metric: String, CaseIterable {
        case success = "probe_success"
        case duration = "probe_duration_seconds"
        case phaseDuration = "probe_http_duration_seconds"
        case statusCode = "probe_http_status_code"
        case httpVersion = "probe_http_version"
        case redirects = "probe_http_redirects"
        case certificateExpiry = "probe_ssl_earliest_cert_expiry"
        case queueWait = "wirelens_queue_wait_seconds"
        case send = "wirelens_send_seconds"
        case reused = "wirelens_connection_reused"
        case uploadSpeed = "wirelens_upload_bytes_per_second"
        case downloadSpeed = "wirelens_download_bytes_per_second"
        case retries = "wirelens_retries"
        case tcpRTT = "wirelens_tcp_rtt_seconds"
        case tcpMinRTT = "wirelens_tcp_min_rtt_seconds"
        case retransmitted = "wirelens_tcp_retransmitted_ratio"
        case limited = "wirelens_tcp_limited_ratio"
        case diagnosis = "wirelens_diagnosis_info"
        case confidence = "wirelens_diagnosis_confidence"
        case assertion = "wirelens_assertion_success"
        case timestamp = "wirelens_check_timestamp_seconds"
        case runs = "wirelens_check_runs_total"
        case failures = "wirelens_check_failures_total"
        case skipped = "wirelens_check_skipped_total"
        case durationHistogram = "wirelens_check_duration_seconds"
        case phaseHistogram = "wirelens_check_phase_duration_seconds"

        /// The family's HELP text.
        var help: String {
            switch self {
            case .success: "1 when the check ran and every assertion held."
            case .duration: "The check's task: redirects and retries included."
            case .phaseDuration:
                "Duration of each phase of the HTTP request, summed over its transactions (absent when it did not happen)."
            case .statusCode: "The final response's HTTP status code."
            case .httpVersion: "The final response's HTTP version."
            case .redirects: "The number of redirects followed."
            case .certificateExpiry: "The earliest expiry of the server's certificate chain, in Unix seconds."
            case .queueWait: "Time the final transaction waited for a connection slot."
            case .send: "Time the final transaction spent writing its request (headers and body)."
            case .reused: "1 when the final transaction reused a pooled connection."
            case .uploadSpeed: "Request body bytes per second over the send phase of the final transaction."
            case .downloadSpeed: "Response body bytes per second over the receive phase of the final transaction."
            case .retries: "Retries the check's task needed."
            case .tcpRTT: "The kernel's smoothed RTT of the final transaction's connection at its end (Linux TCP_INFO)."
            case .tcpMinRTT: "The smallest RTT the kernel saw on the final transaction's connection."
            case .retransmitted: "Bytes retransmitted over bytes sent during the final transaction."
            case .limited:
                "Share of the final transaction's body time the sender was limited by: receive_window (the peer's), "
                    + "send_buffer (its own socket), network (busy within its congestion window) or idle (nothing to send)."
            case .diagnosis: "1 for the verdict naming what held the final transaction back (the verdicts: docs/why-is-it-slow.md)."
            case .confidence: "How sure that verdict is, 0 to 1 (absent for unknown: its reason names the missing fact)."
            case .assertion: "1 when the assertion held."
            case .timestamp: "When the check last ran, in Unix seconds."
            case .runs: "Runs of the check that ended with a result (scheduled and /probe)."
            case .failures: "Failed runs by reason: the task's error class, setup, or assertion."
            case .skipped: "Scheduled runs skipped because the check's previous run was still going."
            case .durationHistogram: "The check's task (redirects and retries included), per run."
            case .phaseHistogram: "Each phase of the HTTP request per run, summed over its transactions (as probe_http_duration_seconds)."
            }
        }

        /// The family's TYPE.
        var type: String {
            switch self {
            case .runs, .failures, .skipped: "counter"
            case .durationHistogram, .phaseHistogram: "histogram"
            default: "gauge"
            }
        }
    }

    /// The exposition text for the results (one result per check; later results of a check win), each sample
    /// labelled with `vantage` when given, with each check's `statistics` when given.
    ///
    /// Written family by family straight into the text (each family's samples in the checks' order), so a scrape of
    /// thousands of checks holds the text and nothing per sample beside it.
    package static func render(_ results: [CheckResult], vantage: String? = nil,
                              statistics: [String: CheckStatistics] = [:]) -> String {
        var latest: [String: CheckResult] = [:]
        var order: [String] = []
        for result in results {
            if latest.updateValue(result, forKey: result.name) == nil { order.append(result.name) }
        }
        // Each check's label, result and statistics, looked up once for every family.
        let checks = order.compactMap { name in latest[name].map { (escape(name), $0, statistics[name]) } }
        var out = ExpositionWriter(vantage: vantage)
        for metric in Metric.allCases {
            out.family = metric
            for (label, result, stats) in checks {
                out.check = label
                samples(of: metric, result, stats, into: &out)
            }
        }
        return out.text
    }

    /// Writes the samples of one family for one check's result (and its statistics, when `serve` keeps them).
    private static func samples(of metric: Metric, _ result: CheckResult, _ stats: CheckStatistics?,
                                into out: inout ExpositionWriter) {
        let record = result.record
        let last = record?.transactions.last
        switch metric {
        case .runs: if let stats { out.add("\(stats.runs)") }
        case .failures:
            guard let stats else { return }
            for reason in stats.failures.keys.sorted() {
                out.add("\(stats.failures[reason] ?? 0)", label: ("reason", reason))
            }
        case .skipped: if let stats { out.add("\(stats.skipped)") }
        case .durationHistogram: if let stats { histogram(stats.total, into: &out) }
        case .phaseHistogram:
            guard let stats else { return }
            for phase in phaseNames {
                if let phaseHistogram = stats.phases[phase] { histogram(phaseHistogram, label: ("phase", phase), into: &out) }
            }
        case .success: out.add(result.passed ? "1" : "0")
        case .timestamp: out.add(seconds(result.startedAt))
        case .assertion:
            for assertion in result.assertions {
                out.add(assertion.passed ? "1" : "0", label: ("assertion", assertion.name))
            }
        case .certificateExpiry: if let expiry = result.certificateExpiry { out.add("\(expiry / 1_000_000)") }
        case .duration: if let record { out.add(seconds(record.duration)) }
        case .phaseDuration:
            guard let record else { return }
            for (phase, value) in phaseDurations(record) { out.add(seconds(value), label: ("phase", phase)) }
        case .statusCode: if let status = record?.statusCode { out.add("\(status)") }
        case .httpVersion: if let version = httpVersion(last?.networkProtocolName) { out.add(version) }
        case .redirects: if let record { out.add("\(record.redirectCount)") }
        case .retries: if let record { out.add("\(record.retries)") }
        case .queueWait: if let queue = last?.phases.queue { out.add(seconds(queue)) }
        case .send: if let send = last?.phases.send { out.add(seconds(send)) }
        case .reused: if let last { out.add(last.reusedConnection ? "1" : "0") }
        case .uploadSpeed: if let speed = last?.uploadSpeed { out.add(Format.fixed(speed, digits: 1)) }
        case .downloadSpeed: if let speed = last?.downloadSpeed { out.add(Format.fixed(speed, digits: 1)) }
        case .tcpRTT: if let tcp = last?.tcp { out.add(seconds(Int64(tcp.smoothedRTT))) }
        case .tcpMinRTT: if let rtt = last?.tcp?.minRTT { out.add(seconds(Int64(rtt))) }
        case .retransmitted: if let share = last?.tcp?.retransmittedShare { out.add(Format.fixed(share, digits: 6)) }
        case .limited:
            guard let e = last?.diagnosis?.evidence else { return }
            for (reason, share) in [("receive_window", e.receiveWindowLimitedShare), ("send_buffer", e.sendBufferLimitedShare),
                                    ("network", e.networkShare), ("idle", e.idleShare)] {
                if let share { out.add(Format.fixed(share, digits: 6), label: ("reason", reason)) }
            }
        case .diagnosis:
            if let diagnosis = last?.diagnosis { out.add("1", label: ("verdict", diagnosis.verdict.rawValue)) }
        case .confidence:
            if let diagnosis = last?.diagnosis, let confidence = diagnosis.evidence.confidence {
                out.add(Format.fixed(confidence, digits: 6), label: ("verdict", diagnosis.verdict.rawValue))
            }
        }
    }

    /// A classic histogram's series: its cumulative buckets, its sum and its count.
    private static func histogram(_ histogram: Histogram, label: (String, String)? = nil,
                                  into out: inout ExpositionWriter) {
        for bucket in histogram.cumulative {
            out.add("\(bucket.count)", label: label, le: bucket.le, suffix: "_bucket")
        }
        out.add(seconds(histogram.sum), label: label, suffix: "_sum")
        out.add("\(histogram.count)", label: label, suffix: "_count")
    }

    /// The text being written: a family's HELP and TYPE go before its first sample (a family without samples is
    /// left out), every sample of the current `family` and `check` carries the check and the vantage labels.
    private struct ExpositionWriter {
        var text = ""
        /// The family being written, and the check (its label value escaped) whose samples come next.
        var family = Metric.success {
            didSet { headed = false }
        }
        var check = ""
        private var headed = false
        private let vantageLabel: String

        init(vantage: String?) {
            vantageLabel = vantage.map { ",vantage=\"\(escape($0))\"" } ?? ""
        }

        /// One sample line: the family's name with `suffix`, the labels (one of its own and a histogram's `le`,
        /// each when given), the value.
        mutating func add(_ value: String, label: (String, String)? = nil, le: String? = nil, suffix: String = "") {
            if !headed {
                text += "# HELP \(family.rawValue) \(family.help)\n# TYPE \(family.rawValue) \(family.type)\n"
                headed = true
            }
            text += family.rawValue
            text += suffix
            text += "{check=\""
            text += check
            text += "\""
            text += vantageLabel
            if let (name, labelValue) = label {
                text += ",\(name)=\"\(escape(labelValue))\""
            }
            if let le {
                text += ",le=\"\(escape(le))\""
            }
            text += "} "
            text += value
            text += "\n"
        }
    }

    /// blackbox_exporter's phase names, in timeline order.
    static let phaseNames = ["resolve", "connect", "tls", "processing", "transfer"]

    /// blackbox_exporter's phases summed over the task's transactions: resolve (dns), connect, tls, processing
    /// (send and wait: from the connection to the first response byte) and transfer (receive); a phase that
    /// happened in no transaction is left out.
    static func phaseDurations(_ record: TaskRecord) -> [(String, Int64)] {
        let pick: [(String, (Phases) -> Int64?)] = [
            ("resolve", { $0.dns }), ("connect", { $0.connect }), ("tls", { $0.tls }),
            ("processing", { p in p.send == nil && p.wait == nil ? nil : (p.send ?? 0) + (p.wait ?? 0) }),
            ("transfer", { $0.receive }),
        ]
        return pick.compactMap { name, value in
            let values = record.transactions.compactMap { value($0.phases) }
            return values.isEmpty ? nil : (name, values.reduce(0, +))
        }
    }

    /// blackbox's version number: 1.0, 1.1, 2 or 3; nil when unknown.
    static func httpVersion(_ name: String?) -> String? {
        switch name {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2": "2"
        case "h3": "3"
        default: nil
        }
    }

    /// µs as seconds with microsecond precision.
    static func seconds(_ micros: Int64) -> String { Format.fixed(Double(micros) / 1e6, digits: 6) }

    /// A label value escaped as the exposition format asks (backslash, double quote, newline).
    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") })
        else { return value }
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
