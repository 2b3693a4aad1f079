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

extension TaskRecord: CompactJSONWritable {
    /// The task at `ReportDetail.full`.
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        TaskJSONWriter.append(self, detail: .full, to: &bytes)
    }
}

extension TaskRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case index, url, method, startedAt, endedAt, durationMs, redirectCount, retries, statusCode, error,
             transactions
    }

    /// The task at `ReportDetail.full`, through its one writer (`TaskJSONWriter`); a report writes its tasks at its
    /// own `detail` (`TaskCoding`).
    public func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
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

/// A task as JSON at a detail level: how a report writes its tasks, through their one writer (`TaskJSONWriter`).
package struct TaskCoding: Encodable, CompactJSONWritable {
    var task: TaskRecord
    var detail: ReportDetail

    package init(task: TaskRecord, detail: ReportDetail) {
        self.task = task
        self.detail = detail
    }

    package func appendCompactJSON(to bytes: inout [UInt8]) {
        TaskJSONWriter.append(task, detail: detail, to: &bytes)
    }

    package func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
    }
}

/// A transaction read from JSON (`TaskJSONWriter` writes it): its timeline from the wall-clock timestamps, libcurl's
/// timers and the kernel's samples when the document holds them.
struct TransactionCoding: Decodable {
    var metrics: TransactionMetrics

    private enum CodingKeys: String, CodingKey {
        case kind, url, method, timestamps, offsetsMs, phasesMs, networkProtocolName, domainResolutionProtocol, dohMs,
             reusedConnection, connectionId,
             proxyConnection, localAddress, localPort, remoteAddress, remotePort, tlsVersion, tlsCipher, alpn,
             statusCode, requestHeaderBytes, requestBodyBytes, responseHeaderBytes, responseBodyBytes,
             responseBodyWireBytes, uploadBytesPerSecond, downloadBytesPerSecond, expectContinueWaitMs, retryWaitMs, retryAfterMs,
             connectionOpenedAt, connectionClosedAt, curlTimersUs,
             responseHeaders, statusText, contentType, error, tcp, mptcp, diagnosis
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
    }
}

/// libcurl's timers in µs, read from JSON.
struct CurlTimersCoding: Decodable {
    var nameLookup: Int64
    var connect: Int64
    var appConnect: Int64
    var preTransfer: Int64
    var startTransfer: Int64
    var total: Int64

    var timers: CurlTimers {
        CurlTimers(nameLookup: nameLookup, connect: connect, appConnect: appConnect, preTransfer: preTransfer,
                   startTransfer: startTransfer, total: total)
    }
}
