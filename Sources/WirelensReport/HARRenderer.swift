import WirelensCore

/// Turns a Wirelens report into a HAR 1.2 document: one entry per transaction (redirect hops and retries included),
/// sorted by start time.
///
/// Timings map as HAR defines them: `blocked` is the queue wait, `connect` holds the TCP connect and the TLS
/// handshake (`ssl` is the handshake alone, counted inside `connect`), and a phase that did not happen is -1
/// (`blocked`, `dns`, `connect`, `ssl`) or 0 (`send`, `wait`, `receive`, which HAR requires to be non-negative).
/// `time` is the sum of the non-negative timings other than `ssl`, as the spec says.
package enum HARRenderer {
    /// The HAR document for a report.
    package static func document(_ report: Report) -> HARDocument {
        let requestHeaders = Self.requestHeaders(report.configuration.options)
        // The spec prefers entries sorted by start time; concurrent tasks interleave, so sort (ties keep task order).
        var started: [(start: Int64, order: Int, entry: HARDocument.Entry)] = []
        for task in report.tasks {
            for transaction in task.transactions {
                started.append((transaction.timeline.fetchStart, started.count,
                                entry(transaction, requestHeaders: requestHeaders)))
            }
        }
        let entries = started.sorted { ($0.start, $0.order) < ($1.start, $1.order) }.map(\.entry)
        let creator = HARDocument.Creator(name: report.tool.name, version: report.tool.version)
        return HARDocument(log: .init(creator: creator, entries: entries))
    }

    /// The document as JSON text (two-space indentation, keys in the spec's order), with a trailing newline.
    package static func render(_ report: Report) throws -> [UInt8] {
        try StreamingJSONEncoder(prettyPrinted: true).encode(document(report)) + [UInt8(ascii: "\n")]
    }

    /// The HAR timings of one transaction, in milliseconds.
    package static func timings(_ phases: Phases) -> HARDocument.Timings {
        func ms(_ micros: Int64?, absent: Double) -> Double { micros.map(Format.millis(fromMicros:)) ?? absent }
        let connect: Int64? = phases.connect.map { $0 + (phases.tls ?? 0) }
        return HARDocument.Timings(
            blocked: ms(phases.queue, absent: -1), dns: ms(phases.dns, absent: -1), connect: ms(connect, absent: -1),
            send: ms(phases.send, absent: 0), wait: ms(phases.wait, absent: 0), receive: ms(phases.receive, absent: 0),
            ssl: ms(phases.tls, absent: -1))
    }

    /// The entry's `time`: the sum of the non-negative timings other than `ssl`, summed in microseconds.
    static func time(_ phases: Phases) -> Double {
        let parts = [phases.queue, phases.dns, phases.connect, phases.tls, phases.send, phases.wait, phases.receive]
        return Format.millis(fromMicros: parts.compactMap { $0 }.reduce(0, +))
    }

    /// One transaction as a HAR entry.
    static func entry(_ t: TransactionMetrics, requestHeaders: [HARDocument.NameValue]) -> HARDocument.Entry {
        let responseHeaders = (t.responseHeaders ?? []).map { HARDocument.NameValue(name: $0.name, value: $0.value) }
        func header(_ name: String) -> String? {
            t.responseHeaders?.first { $0.name.lowercased() == name }?.value
        }
        let version = httpVersion(t.networkProtocolName)
        let request = HARDocument.Request(
            method: t.method, url: t.url, httpVersion: version, headers: requestHeaders,
            queryString: queryString(t.url), headersSize: t.requestHeaderBytes > 0 ? t.requestHeaderBytes : -1,
            bodySize: t.requestBodyBytes)
        let response = HARDocument.Response(
            status: t.statusCode ?? 0, statusText: t.statusText ?? "", httpVersion: version, headers: responseHeaders,
            content: .init(size: t.responseBodyBytes, mimeType: t.contentType ?? header("content-type") ?? ""),
            redirectURL: header("location") ?? "",
            headersSize: t.responseHeaderBytes > 0 ? t.responseHeaderBytes : -1,
            bodySize: t.statusCode == nil ? -1 : t.responseBodyBytes)
        let connection = t.connectionId.map(String.init) ?? t.localPort.map(String.init)
        let error = t.error.map { "\($0.errorClass.rawValue): \($0.message)" }
        let why = t.diagnosis.map { d in
            "\(d.verdict.rawValue): \(d.explanation)" + (d.basis.map { " Basis: \($0)." } ?? "")
        }
        let comment = [why, ReportText.resolution(t).map { "\($0)." }].compactMap { $0 }.joined(separator: " ")
        return HARDocument.Entry(
            startedDateTime: WallClock.iso8601(micros: t.timeline.fetchStart), time: time(t.phases),
            request: request, response: response, timings: timings(t.phases), serverIPAddress: t.remoteAddress,
            connection: connection, _error: error, _tcp: t.tcp, _diagnosis: t.diagnosis,
            comment: comment.isEmpty ? nil : comment)
    }

    /// HAR's version text for a Wirelens protocol name ("HTTP/1.1", "HTTP/2"); empty when unknown.
    static func httpVersion(_ name: String?) -> String {
        switch name {
        case "http/1.0": "HTTP/1.0"
        case "http/1.1": "HTTP/1.1"
        case "h2": "HTTP/2"
        case "h3": "HTTP/3"
        default: ""
        }
    }

    /// The request headers the run sent that its report knows: the User-Agent and the extra headers (redacted).
    static func requestHeaders(_ options: ProbeOptions) -> [HARDocument.NameValue] {
        [HARDocument.NameValue(name: "User-Agent", value: options.userAgent)]
            + Redactor.headers(options.headers).map { HARDocument.NameValue(name: $0.name, value: $0.value) }
    }

    /// The URL's query parameters, as written (the URL is already redacted).
    static func queryString(_ url: String) -> [HARDocument.NameValue] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        return query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return HARDocument.NameValue(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
    }
}
