import WirelensCore

/// The `-w/--write-out` variables of one task, computed from its transactions' own instants (not libcurl's timers).
///
/// The task's final attempt counts, as curl's `--retry` restarts its timers: the transactions from the last retry
/// on (all of them when there was none). Times are cumulative seconds from that attempt's start with 6 decimals,
/// as in curl; where a phase did not happen the time is the previous step's (a reused connection's
/// `time_connect` is its `time_namelookup`), and `time_appconnect` is 0 without TLS, as in curl. URLs and the error
/// message go through the `Redactor`.
package struct WriteOutValues: Sendable, Equatable {
    /// One variable's value and how it is written.
    package enum Value: Sendable, Equatable {
        /// A duration or an instant in µs, written as seconds with 6 decimals.
        case seconds(Int64)
        /// A count, a size, a port or a speed in bytes per second.
        case integer(Int64)
        /// An HTTP status, written with 3 digits (`000` when no response came, as in curl).
        case status(Int)
        case text(String)
    }

    /// The variables in the order `%{json}` writes them.
    package let values: [(name: String, value: Value)]

    package static func == (lhs: WriteOutValues, rhs: WriteOutValues) -> Bool {
        lhs.values.elementsEqual(rhs.values) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The names of the variables, in `%{json}`'s order: curl's, then Wirelens' own.
    package static let names = [
        "url", "url_effective", "method", "http_code", "response_code", "http_version", "content_type",
        "time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer",
        "time_redirect", "time_total", "num_connects", "num_redirects", "remote_ip", "remote_port", "local_ip",
        "local_port", "size_download", "size_upload", "size_header", "size_request", "speed_download",
        "speed_upload", "exitcode", "errormsg",
        "time_queue", "time_send", "time_wait", "reused", "verdict",
    ]

    /// The values of `task`; `exitCode` is the exit code Wirelens gives the task (its documented table).
    package init(task: TaskRecord, exitCode: Int32) {
        let all = task.transactions
        let from = all.lastIndex { $0.kind == .retry } ?? all.startIndex
        let attempt = all[from...]
        guard let last = attempt.last else {
            self.init(names: Self.names) { name in
                switch name {
                case "url", "url_effective": .text(Redactor.url(task.url))
                case "method": .text(task.method)
                case "http_code", "response_code": .status(task.statusCode ?? 0)
                case "http_version": .text("0")
                case "exitcode": .integer(Int64(exitCode))
                case "errormsg": .text(task.error.map { Redactor.message($0.message) } ?? "")
                case "content_type", "remote_ip", "local_ip", "verdict": .text("")
                case _ where name.hasPrefix("time_"): .seconds(0)
                default: .integer(0)
                }
            }
            return
        }
        let t = last.timeline
        let origin = attempt.first?.timeline.fetchStart ?? t.fetchStart
        func since(_ instant: Int64) -> Int64 { max(0, instant - origin) }
        let queueEnd = since(t.fetchStart + (last.phases.queue ?? 0))
        let nameLookup = t.domainLookupEnd.map(since) ?? queueEnd
        let connect = t.connectEnd.map(since) ?? nameLookup
        let appConnect = t.secureConnectionEnd.map(since) ?? 0
        let preTransfer = t.requestStart.map(since) ?? max(connect, appConnect)
        let startTransfer = t.responseStart.map(since) ?? 0
        let total = since(t.responseEnd ?? (t.fetchStart + last.phases.total))
        let redirect = last.kind == .redirect ? since(t.fetchStart) : 0
        func speed(_ bytes: Int64) -> Int64 { total > 0 ? Int64((Double(bytes) * 1e6 / Double(total)).rounded(.down)) : 0 }
        let version: String = switch last.networkProtocolName {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2": "2"
        case "h3": "3"
        default: "0"
        }
        self.init(names: Self.names) { name in
            switch name {
            case "url": .text(Redactor.url(task.url))
            case "url_effective": .text(Redactor.url(last.url))
            case "method": .text(last.method)
            case "http_code", "response_code": .status(last.statusCode ?? 0)
            case "http_version": .text(version)
            case "content_type": .text(last.contentType ?? "")
            case "time_namelookup": .seconds(nameLookup)
            case "time_connect": .seconds(connect)
            case "time_appconnect": .seconds(appConnect)
            case "time_pretransfer": .seconds(preTransfer)
            case "time_starttransfer": .seconds(startTransfer)
            case "time_redirect": .seconds(redirect)
            case "time_total": .seconds(total)
            case "num_connects": .integer(Int64(attempt.filter(\.openedConnection).count))
            case "num_redirects": .integer(Int64(attempt.filter { $0.kind == .redirect }.count))
            case "remote_ip": .text(last.remoteAddress ?? "")
            case "remote_port": .integer(Int64(last.remotePort ?? 0))
            case "local_ip": .text(last.localAddress ?? "")
            case "local_port": .integer(Int64(last.localPort ?? 0))
            // curl's size_download counts the body as it came, before --compressed decodes it.
            case "size_download": .integer(last.responseBodyWireBytes ?? last.responseBodyBytes)
            case "size_upload": .integer(last.requestBodyBytes)
            case "size_header": .integer(attempt.reduce(0) { $0 + $1.responseHeaderBytes })
            case "size_request": .integer(attempt.reduce(0) { $0 + $1.requestHeaderBytes + $1.requestBodyBytes })
            case "speed_download": .integer(speed(last.responseBodyBytes))
            case "speed_upload": .integer(speed(last.requestBodyBytes))
            case "exitcode": .integer(Int64(exitCode))
            case "errormsg": .text(task.error.map { Redactor.message($0.message) } ?? "")
            case "time_queue": .seconds(last.phases.queue ?? 0)
            case "time_send": .seconds(last.phases.send ?? 0)
            case "time_wait": .seconds(last.phases.wait ?? 0)
            case "reused": .integer(last.reusedConnection ? 1 : 0)
            case "verdict": .text(last.diagnosis?.verdict.rawValue ?? "")
            default: .text("")
            }
        }
    }

    private init(names: [String], value: (String) -> Value) {
        values = names.map { ($0, value($0)) }
    }

    /// A variable's value as `%{name}` writes it; nil for a name that is not a variable.
    package func text(of name: String) -> String? {
        values.first { $0.name == name }.map { Self.text($0.value) }
    }

    /// Every variable as one JSON object (`%{json}`): times and counts as numbers, the rest as strings.
    package var json: String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (offset, entry) in values.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(entry.name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch entry.value {
            case .seconds: bytes.append(contentsOf: Self.text(entry.value).utf8)
            case .status(let code): JSONBytes.appendInt(Int64(code), to: &bytes)
            case .integer(let n): JSONBytes.appendInt(n, to: &bytes)
            case .text(let s): JSONBytes.appendString(s, to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A value as text: seconds with 6 decimals, a status with 3 digits.
    private static func text(_ value: Value) -> String {
        switch value {
        case .seconds(let signed):
            let micros = max(0, signed)
            let fraction = String(micros % 1_000_000)
            return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
        case .status(let code):
            let digits = String(code)
            return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        case .integer(let n): return String(n)
        case .text(let s): return s
        }
    }
}
