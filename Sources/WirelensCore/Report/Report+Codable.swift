/// JSON coding of reports: wall-clock instants as RFC 3339 text with microseconds, durations in ms.
extension Report: Codable {
    private enum CodingKeys: String, CodingKey {
        case schema, detail, tool, libcurl, command, startedAt, endedAt, interrupted, configuration, caveats, summary,
             upload, connections, tasks
    }

    public func encode(to encoder: Encoder) throws {
        try Members(self, Layout.stored.sections).encode(to: encoder)
    }

    /// The groups of members a report's document is made of, each written whole.
    public enum Section: Sendable, Equatable {
        /// `schema` (and `detail`) to `startedAt`.
        case start
        /// `endedAt` and `interrupted`.
        case end
        case configuration
        /// `caveats`, `summary` and `upload`.
        case outcome
        /// `connections`.
        case connections
        case tasks
    }

    /// The order of a document's members: the single definition of both documents' shapes.
    public enum Layout: Sendable {
        /// A stored report (and its Codable form): the tasks last.
        case stored
        /// A report written while its run goes on (`JSONRenderer.Stream`): the tasks right after `configuration`,
        /// so what comes before them is known before the first task ends and the rest once the run is over.
        case streamed

        public var sections: [Section] {
            switch self {
            case .stored: [.start, .end, .configuration, .outcome, .connections, .tasks]
            case .streamed: [.start, .configuration, .tasks, .end, .outcome, .connections]
            }
        }
    }

    /// The key of the tasks array (`Section.tasks`), for a writer that writes the array's elements one by one.
    public static let tasksKey = CodingKeys.tasks.stringValue
    /// The key of the connections array (`Section.connections`), for a writer that writes it itself.
    public static let connectionsKey = CodingKeys.connections.stringValue

    /// Some sections of a report, encoded as the members of one keyed container in the order given: a whole
    /// document, or the part of one that a writer writing in parts has at hand.
    public struct Members: Encodable {
        let report: Report
        let sections: [Section]

        public init(_ report: Report, _ sections: [Section]) {
            self.report = report
            self.sections = sections
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            for section in sections {
                try report.encode(section, into: &c)
            }
        }
    }

    private func encode(_ section: Section, into c: inout KeyedEncodingContainer<CodingKeys>) throws {
        switch section {
        case .start:
            try c.encode(schema, forKey: .schema)
            try c.encode(detail, forKey: .detail)
            try c.encode(tool, forKey: .tool)
            try c.encode(libcurl, forKey: .libcurl)
            try c.encode(command, forKey: .command)
            try c.encode(WallClock.iso8601(micros: startedAt), forKey: .startedAt)
        case .end:
            try c.encode(WallClock.iso8601(micros: endedAt), forKey: .endedAt)
            try c.encode(interrupted, forKey: .interrupted)
        case .configuration:
            try c.encode(configuration, forKey: .configuration)
        case .outcome:
            try c.encode(caveats, forKey: .caveats)
            try c.encode(summary, forKey: .summary)
            try c.encodeIfPresent(upload, forKey: .upload)
        case .connections:
            try c.encode(connections, forKey: .connections)
        case .tasks:
            try c.encode(tasks.map { TaskCoding(task: $0, detail: detail) }, forKey: .tasks)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(String.self, forKey: .schema)
        switch version {
        case Report.schemaID: detail = try c.decode(ReportDetail.self, forKey: .detail)
        // The converter from the version before: its documents hold every member of `full`, and read as such.
        case Report.previousSchemaID: detail = .full
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .schema, in: c,
                debugDescription: "not a \(Report.schemaID) (or \(Report.previousSchemaID)) document")
        }
        tool = try c.decode(Tool.self, forKey: .tool)
        libcurl = try c.decode(LibcurlDescription.self, forKey: .libcurl)
        command = try c.decode(String.self, forKey: .command)
        startedAt = try decodeInstant(c, .startedAt)
        endedAt = try decodeInstant(c, .endedAt)
        interrupted = try c.decode(Bool.self, forKey: .interrupted)
        // A report written by an older version may hold secrets its redaction missed: redacted again here.
        configuration = try c.decode(RunConfiguration.self, forKey: .configuration)
        configuration.urls = configuration.urls.map(Redactor.url)
        configuration.options = configuration.options.redacted
        caveats = try c.decode([Caveat].self, forKey: .caveats)
        summary = try c.decode(Summary.self, forKey: .summary)
        upload = try c.decodeIfPresent(UploadSection.self, forKey: .upload)
        if let url = upload?.url { upload?.url = Redactor.url(url) }
        tasks = try c.decode([TaskRecord].self, forKey: .tasks)
        // A report written before connections were listed: none.
        connections = try c.decodeIfPresent([ConnectionRecord].self, forKey: .connections) ?? []
    }
}

/// Decodes an RFC 3339 instant written by `WallClock.iso8601(micros:)`.
func decodeInstant<K: CodingKey>(_ c: KeyedDecodingContainer<K>, _ key: K) throws -> Int64 {
    let text = try c.decode(String.self, forKey: key)
    guard let micros = WallClock.parseISO8601(text) else {
        throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "bad timestamp \(text)")
    }
    return micros
}

extension TaskRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case index, url, method, startedAt, endedAt, durationMs, redirectCount, retries, statusCode, error,
             transactions
    }

    /// The task at `ReportDetail.full`; a report writes its tasks at its own `detail`.
    public func encode(to encoder: Encoder) throws {
        try encode(to: encoder, detail: .full)
    }

    func encode(to encoder: Encoder, detail: ReportDetail) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(url, forKey: .url)
        try c.encode(method, forKey: .method)
        try c.encode(WallClock.iso8601(micros: startedAt), forKey: .startedAt)
        try c.encode(WallClock.iso8601(micros: endedAt), forKey: .endedAt)
        try c.encode(Format.millis(fromMicros: duration), forKey: .durationMs)
        try c.encode(redirectCount, forKey: .redirectCount)
        try c.encode(retries, forKey: .retries)
        try c.encode(statusCode, forKey: .statusCode)
        try c.encode(error, forKey: .error)
        try c.encode(transactions.map { TransactionCoding(metrics: $0, taskStart: startedAt, detail: detail) },
                     forKey: .transactions)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            index: try c.decode(Int.self, forKey: .index), url: try c.decode(String.self, forKey: .url),
            method: try c.decode(String.self, forKey: .method), startedAt: try decodeInstant(c, .startedAt),
            endedAt: try decodeInstant(c, .endedAt), redirectCount: try c.decode(Int.self, forKey: .redirectCount),
            retries: try c.decode(Int.self, forKey: .retries),
            statusCode: try c.decodeIfPresent(Int.self, forKey: .statusCode),
            error: try c.decodeIfPresent(TransferError.self, forKey: .error),
            transactions: try c.decode([TransactionCoding].self, forKey: .transactions).map(\.metrics))
    }
}

/// A task as JSON at a detail level: how a report writes its tasks.
package struct TaskCoding: Encodable {
    var task: TaskRecord
    var detail: ReportDetail

    package init(task: TaskRecord, detail: ReportDetail) {
        self.task = task
        self.detail = detail
    }

    package func encode(to encoder: Encoder) throws {
        try task.encode(to: encoder, detail: detail)
    }
}

/// A transaction as JSON: its timeline as wall-clock timestamps and, at `ReportDetail.full`, as offsets from its
/// task's start, with libcurl's timers and the kernel's samples.
struct TransactionCoding: Codable {
    var metrics: TransactionMetrics
    var taskStart: Int64
    var detail: ReportDetail

    init(metrics: TransactionMetrics, taskStart: Int64, detail: ReportDetail) {
        self.metrics = metrics
        self.taskStart = taskStart
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey {
        case kind, url, method, timestamps, offsetsMs, phasesMs, networkProtocolName, domainResolutionProtocol, dohMs,
             reusedConnection, connectionId,
             proxyConnection, localAddress, localPort, remoteAddress, remotePort, tlsVersion, tlsCipher, alpn,
             statusCode, requestHeaderBytes, requestBodyBytes, responseHeaderBytes, responseBodyBytes,
             responseBodyWireBytes, uploadBytesPerSecond, downloadBytesPerSecond, expectContinueWaitMs, retryWaitMs, retryAfterMs,
             connectionOpenedAt, connectionClosedAt, curlTimersUs,
             responseHeaders, statusText, contentType, error, tcp, mptcp, diagnosis
    }

    func encode(to encoder: Encoder) throws {
        let m = metrics
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(m.kind, forKey: .kind)
        try c.encode(m.url, forKey: .url)
        try c.encode(m.method, forKey: .method)
        var stamps = c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .timestamps)
        for field in m.timeline.fields {
            try stamps.encode(field.value.map { WallClock.iso8601(micros: $0) }, forKey: AnyCodingKey(stringValue: field.name))
        }
        if detail.keepsDebugMembers {
            var offsets = c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .offsetsMs)
            for field in m.timeline.fields {
                try offsets.encode(field.value.map { Format.millis(fromMicros: $0 - taskStart) },
                                   forKey: AnyCodingKey(stringValue: field.name))
            }
        }
        try c.encode(m.phases, forKey: .phasesMs)
        try c.encode(m.networkProtocolName, forKey: .networkProtocolName)
        try c.encode(m.domainResolutionProtocol, forKey: .domainResolutionProtocol)
        // Only when DNS over HTTPS ran for the transaction.
        if let doh = m.dohDuration { try c.encode(Format.millis(fromMicros: doh), forKey: .dohMs) }
        try c.encode(m.reusedConnection, forKey: .reusedConnection)
        try c.encode(m.connectionId, forKey: .connectionId)
        try c.encode(m.proxyConnection, forKey: .proxyConnection)
        try c.encode(m.localAddress, forKey: .localAddress)
        try c.encode(m.localPort, forKey: .localPort)
        try c.encode(m.remoteAddress, forKey: .remoteAddress)
        try c.encode(m.remotePort, forKey: .remotePort)
        try c.encode(m.tlsVersion, forKey: .tlsVersion)
        try c.encode(m.tlsCipher, forKey: .tlsCipher)
        try c.encode(m.alpn, forKey: .alpn)
        try c.encode(m.statusCode, forKey: .statusCode)
        try c.encode(m.requestHeaderBytes, forKey: .requestHeaderBytes)
        try c.encode(m.requestBodyBytes, forKey: .requestBodyBytes)
        try c.encode(m.responseHeaderBytes, forKey: .responseHeaderBytes)
        try c.encode(m.responseBodyBytes, forKey: .responseBodyBytes)
        // Only with --compressed: the body's bytes before decoding.
        if let wire = m.responseBodyWireBytes { try c.encode(wire, forKey: .responseBodyWireBytes) }
        try c.encode(m.uploadSpeed.map { $0.rounded() }, forKey: .uploadBytesPerSecond)
        try c.encode(m.downloadSpeed.map { $0.rounded() }, forKey: .downloadBytesPerSecond)
        try c.encode(m.expectContinueWait.map(Format.millis(fromMicros:)), forKey: .expectContinueWaitMs)
        // Only on retries: most transactions are not, and a large report would carry two nulls for each.
        if let wait = m.retryWait { try c.encode(Format.millis(fromMicros: wait), forKey: .retryWaitMs) }
        if let asked = m.retryAfter { try c.encode(Format.millis(fromMicros: asked), forKey: .retryAfterMs) }
        if let opened = m.connectionOpened {
            try c.encode(WallClock.iso8601(micros: opened), forKey: .connectionOpenedAt)
        }
        if let closed = m.connectionClosed {
            try c.encode(WallClock.iso8601(micros: closed), forKey: .connectionClosedAt)
        }
        if detail.keepsDebugMembers { try c.encode(CurlTimersCoding(m.curlTimers), forKey: .curlTimersUs) }
        if let headers = m.responseHeaders { try c.encode(headers, forKey: .responseHeaders) }
        if let text = m.statusText { try c.encode(text, forKey: .statusText) }
        if let type = m.contentType { try c.encode(type, forKey: .contentType) }
        try c.encode(m.error, forKey: .error)
        if detail.keepsDebugMembers {
            try c.encode(m.tcp, forKey: .tcp)
        } else {
            var tcp = m.tcp
            tcp?.samples = []  // an empty array writes no key
            try c.encode(tcp, forKey: .tcp)
        }
        // Only on a Multipath TCP socket (`--mptcp`).
        if let mptcp = m.mptcp { try c.encode(mptcp, forKey: .mptcp) }
        try c.encode(m.diagnosis, forKey: .diagnosis)
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let stamps = try c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .timestamps)
        var fields: [String: Int64] = [:]
        for key in stamps.allKeys {
            if let text = try stamps.decodeIfPresent(String.self, forKey: key), let micros = WallClock.parseISO8601(text) {
                fields[key.stringValue] = micros
            }
        }
        guard let timeline = Timeline(fields: fields) else {
            throw DecodingError.dataCorruptedError(forKey: .timestamps, in: c, debugDescription: "no fetchStart")
        }
        var m = TransactionMetrics(
            kind: try c.decode(TransactionKind.self, forKey: .kind), url: try c.decode(String.self, forKey: .url),
            method: try c.decode(String.self, forKey: .method), timeline: timeline,
            phases: try c.decode(Phases.self, forKey: .phasesMs),
            reusedConnection: try c.decode(Bool.self, forKey: .reusedConnection),
            proxyConnection: try c.decode(Bool.self, forKey: .proxyConnection),
            // A `standard` document has no libcurl timers: zero, never written again (`Report.detail`).
            curlTimers: try c.decodeIfPresent(CurlTimersCoding.self, forKey: .curlTimersUs)?.timers ?? CurlTimers())
        m.networkProtocolName = try c.decodeIfPresent(String.self, forKey: .networkProtocolName)
        m.domainResolutionProtocol = try c.decodeIfPresent(DomainResolutionProtocol.self,
                                                           forKey: .domainResolutionProtocol)
        m.dohDuration = try c.decodeIfPresent(Double.self, forKey: .dohMs).map(Format.micros(fromMillis:))
        m.connectionId = try c.decodeIfPresent(Int.self, forKey: .connectionId)
        m.localAddress = try c.decodeIfPresent(String.self, forKey: .localAddress)
        m.localPort = try c.decodeIfPresent(Int.self, forKey: .localPort)
        m.remoteAddress = try c.decodeIfPresent(String.self, forKey: .remoteAddress)
        m.remotePort = try c.decodeIfPresent(Int.self, forKey: .remotePort)
        m.tlsVersion = try c.decodeIfPresent(String.self, forKey: .tlsVersion)
        m.tlsCipher = try c.decodeIfPresent(String.self, forKey: .tlsCipher)
        m.alpn = try c.decodeIfPresent(String.self, forKey: .alpn)
        m.statusCode = try c.decodeIfPresent(Int.self, forKey: .statusCode)
        m.requestHeaderBytes = try c.decode(Int64.self, forKey: .requestHeaderBytes)
        m.requestBodyBytes = try c.decode(Int64.self, forKey: .requestBodyBytes)
        m.responseHeaderBytes = try c.decode(Int64.self, forKey: .responseHeaderBytes)
        m.responseBodyBytes = try c.decode(Int64.self, forKey: .responseBodyBytes)
        m.responseBodyWireBytes = try c.decodeIfPresent(Int64.self, forKey: .responseBodyWireBytes)
        m.expectContinueWait = try c.decodeIfPresent(Double.self, forKey: .expectContinueWaitMs)
            .map(Format.micros(fromMillis:))
        m.retryWait = try c.decodeIfPresent(Double.self, forKey: .retryWaitMs).map(Format.micros(fromMillis:))
        m.retryAfter = try c.decodeIfPresent(Double.self, forKey: .retryAfterMs).map(Format.micros(fromMillis:))
        m.connectionOpened = try c.decodeIfPresent(String.self, forKey: .connectionOpenedAt)
            .flatMap(WallClock.parseISO8601)
        m.connectionClosed = try c.decodeIfPresent(String.self, forKey: .connectionClosedAt)
            .flatMap(WallClock.parseISO8601)
        m.responseHeaders = try c.decodeIfPresent([HeaderField].self, forKey: .responseHeaders)
        m.statusText = try c.decodeIfPresent(String.self, forKey: .statusText)
        m.contentType = try c.decodeIfPresent(String.self, forKey: .contentType)
        m.error = try c.decodeIfPresent(TransferError.self, forKey: .error)
        m.tcp = try c.decodeIfPresent(TCPFacts.self, forKey: .tcp)
        m.mptcp = try c.decodeIfPresent(MPTCPFacts.self, forKey: .mptcp)
        m.diagnosis = try c.decodeIfPresent(Diagnosis.self, forKey: .diagnosis)
        metrics = m
        taskStart = timeline.fetchStart
        detail = .full
    }
}

/// libcurl's timers in µs as JSON.
struct CurlTimersCoding: Codable {
    var nameLookup: Int64
    var connect: Int64
    var appConnect: Int64
    var preTransfer: Int64
    var startTransfer: Int64
    var total: Int64

    init(_ t: CurlTimers) {
        nameLookup = t.nameLookup
        connect = t.connect
        appConnect = t.appConnect
        preTransfer = t.preTransfer
        startTransfer = t.startTransfer
        total = t.total
    }

    var timers: CurlTimers {
        CurlTimers(nameLookup: nameLookup, connect: connect, appConnect: appConnect, preTransfer: preTransfer,
                   startTransfer: startTransfer, total: total)
    }
}
