import WirelensCore

/// Writes check results as Prometheus exposition text (format 0.0.4), ready for node_exporter's textfile collector
/// and for `serve`'s /metrics.
///
/// Names follow blackbox_exporter where the meaning is the same (`probe_success`, `probe_duration_seconds`,
/// `probe_http_duration_seconds{phase}`, `probe_http_status_code`, `probe_http_version`,
/// `probe_ssl_earliest_cert_expiry`); Wirelens' own figures are `wirelens_*`. Every sample carries the check's
/// name as the `check` label. A phase that did not happen has no sample (never a 0).
public enum PrometheusRenderer {
    /// One metric family: its name, type, help and samples (labels without `check`, value).
    struct Family {
        let name: String
        let type: String
        let help: String
        var samples: [(check: String, labels: [(String, String)], value: String)] = []
    }

    /// The exposition text for the results (one result per check; later results of a check win).
    public static func render(_ results: [CheckResult]) -> String {
        var families: [Family] = [
            Family(name: "probe_success", type: "gauge", help: "1 when the check ran and every assertion held."),
            Family(name: "probe_duration_seconds", type: "gauge", help: "The check's task: redirects and retries included."),
            Family(name: "probe_http_duration_seconds", type: "gauge",
                   help: "Duration of each phase of the HTTP request, summed over its transactions (absent when it did not happen)."),
            Family(name: "probe_http_status_code", type: "gauge", help: "The final response's HTTP status code."),
            Family(name: "probe_http_version", type: "gauge", help: "The final response's HTTP version."),
            Family(name: "probe_http_redirects", type: "gauge", help: "The number of redirects followed."),
            Family(name: "probe_ssl_earliest_cert_expiry", type: "gauge",
                   help: "The earliest expiry of the server's certificate chain, in Unix seconds."),
            Family(name: "wirelens_queue_wait_seconds", type: "gauge",
                   help: "Time the final transaction waited for a connection slot."),
            Family(name: "wirelens_send_seconds", type: "gauge",
                   help: "Time the final transaction spent writing its request (headers and body)."),
            Family(name: "wirelens_connection_reused", type: "gauge",
                   help: "1 when the final transaction reused a pooled connection."),
            Family(name: "wirelens_upload_bytes_per_second", type: "gauge",
                   help: "Request body bytes per second over the send phase of the final transaction."),
            Family(name: "wirelens_download_bytes_per_second", type: "gauge",
                   help: "Response body bytes per second over the receive phase of the final transaction."),
            Family(name: "wirelens_retries", type: "gauge", help: "Retries the check's task needed."),
            Family(name: "wirelens_assertion_success", type: "gauge", help: "1 when the assertion held."),
            Family(name: "wirelens_check_timestamp_seconds", type: "gauge", help: "When the check last ran, in Unix seconds."),
        ]
        func add(_ index: Int, _ check: String, _ labels: [(String, String)] = [], _ value: String) {
            families[index].samples.append((check, labels, value))
        }
        var latest: [String: CheckResult] = [:]
        var order: [String] = []
        for result in results {
            if latest.updateValue(result, forKey: result.name) == nil { order.append(result.name) }
        }
        for name in order {
            guard let result = latest[name] else { continue }
            add(0, name, [], result.passed ? "1" : "0")
            add(14, name, [], seconds(result.startedAt))
            for assertion in result.assertions {
                add(13, name, [("assertion", assertion.name)], assertion.passed ? "1" : "0")
            }
            if let expiry = result.certificateExpiry { add(6, name, [], "\(expiry / 1_000_000)") }
            guard let record = result.record else { continue }
            add(1, name, [], seconds(record.duration))
            for (phase, value) in phaseDurations(record) {
                add(2, name, [("phase", phase)], seconds(value))
            }
            if let status = record.statusCode { add(3, name, [], "\(status)") }
            if let version = httpVersion(record.transactions.last?.networkProtocolName) { add(4, name, [], version) }
            add(5, name, [], "\(record.redirectCount)")
            add(12, name, [], "\(record.retries)")
            guard let last = record.transactions.last else { continue }
            if let queue = last.phases.queue { add(7, name, [], seconds(queue)) }
            if let send = last.phases.send { add(8, name, [], seconds(send)) }
            add(9, name, [], last.reusedConnection ? "1" : "0")
            if let speed = last.uploadSpeed { add(10, name, [], Format.fixed(speed, digits: 1)) }
            if let speed = last.downloadSpeed { add(11, name, [], Format.fixed(speed, digits: 1)) }
        }
        var out = ""
        for family in families where !family.samples.isEmpty {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for sample in family.samples {
                let labels = [("check", sample.check)] + sample.labels
                let text = labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
                out += "\(family.name){\(text)} \(sample.value)\n"
            }
        }
        return out
    }

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
