import WirelensCore

/// The HTTP/1.x exchanges of one TCP connection, built from its two in-order byte streams (or, when the
/// connection carries TLS, the exchanges its TLS records imply).
///
/// Requests and responses pair in order: the n-th final response answers the n-th request, so several
/// requests in one segment are several exchanges, each with its own response.
struct HTTPConversation: HTTPMessageSink {
    /// What the connection carries, as far as its first bytes tell.
    enum Detected: String {
        case http1 = "http/1.x", h2c, tls, other
    }

    /// The two directions' parsers, held by reference so that one can run while its events update the
    /// conversation in place (the handling of one side's events touches only the other side's parser).
    private let parsers = HTTPParserPair()
    private(set) var exchanges: [HTTPExchange] = []
    /// Exchanges whose final response has ended.
    private var responsesDone = 0
    /// Start of the response message being read (it may turn out to be an interim 1xx).
    private var responseMessageStart: Int64?
    private(set) var detected: Detected?
    /// What stopped the parsing, for the report.
    private(set) var notes: [String] = []
    /// Which side's parser is handing over events (`withParser`).
    private var eventsFromClient = true
    /// Masks secrets in request targets; shared by the connections of a capture.
    private let targets: TargetRedactor
    /// The record-layer reading when the connection carries TLS.
    private(set) var tls: TLSConversation?

    /// The frame-layer reading when the connection speaks HTTP/2 with prior knowledge.
    private(set) var http2: HTTP2Conversation?

    /// The capture began after the connection's first bytes: each side is read from its next message start, and
    /// the server's bytes may come first.
    private var midStream = false

    /// The exchanges read or inferred.
    var allExchanges: [HTTPExchange] { tls?.exchanges ?? http2?.exchanges ?? exchanges }
    /// Notes of the HTTP, HTTP/2 and TLS readings.
    var allNotes: [String] {
        var seeking: [String] = []
        if midStream, !mayHoldFrames {
            for (side, skipped) in [("client", parsers.requests.unresolvedSkippedBytes),
                                    ("server", parsers.responses.unresolvedSkippedBytes)] where skipped > 0 {
                seeking.append("the capture began inside the \(side)'s stream: none of its \(skipped) bytes began an "
                    + "HTTP/1.x message")
            }
        }
        return notes + seeking + (tls?.notes ?? []) + (http2?.notes ?? [])
    }

    /// True when the connection was detected as TLS or h2c: only then can `tls` or `http2` be set, and only then
    /// are they looked into (testing those optionals copies them, on every segment).
    private var mayHoldFrames: Bool { detected == .tls || detected == .h2c }

    /// A conversation whose request targets go through `targets` (one per capture, so that the query names it
    /// has found harmless serve every connection).
    init(targets: TargetRedactor = TargetRedactor()) {
        self.targets = targets
    }

    /// True while bytes from that side are still parsed (so that reordered segments are worth keeping).
    ///
    /// Mutating only so that the connection, which holds its conversation in a class, asks it in place: a
    /// non-mutating call there copied the whole conversation (and released the copy) on every segment.
    mutating func wantsBytes(fromClient: Bool) -> Bool {
        if mayHoldFrames {
            if let wanted = tls?.wantsBytes(fromClient: fromClient) { return wanted }
            if let wanted = http2?.wantsBytes(fromClient: fromClient) { return wanted }
        }
        return fromClient ? parsers.requests.isActive : parsers.responses.isActive
    }

    /// Bytes in order from one side, arrived at `time` (µs).
    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) {
        guard !bytes.isEmpty else { return }
        if detected == nil { detect(bytes, fromClient: fromClient) }
        if mayHoldFrames {
            if tls != nil {
                tls?.receive(bytes, fromClient: fromClient, time: time)
                return
            }
            if http2 != nil {
                http2?.receive(bytes, fromClient: fromClient, time: time)
                return
            }
        }
        withParser(fromClient: fromClient) { parser, sink in parser.feed(bytes, time: time, events: &sink) }
        // A 101 to h2c: HTTP/2 from here on, both ways. The server's frames may follow the 101 in the same bytes
        // (or come in later ones: the parsers have stopped, so the switch cannot wait for them).
        if !fromClient, detected == .h2c, http2 == nil,
           let upgrade = exchanges.last(where: { $0.statusCode == 101 }) {
            http2 = HTTP2Conversation(upgrading: upgrade, targets: targets)
            if let offset = parsers.responses.switchedAt, offset < bytes.count {
                http2?.receive(UnsafeRawBufferPointer(rebasing: bytes[offset...]), fromClient: false, time: time)
            }
        }
    }

    /// `count` bytes from one side that the capture did not hold.
    mutating func skip(_ count: Int64, fromClient: Bool, time: Int64) {
        if mayHoldFrames {
            if tls != nil {
                tls?.skip(count, fromClient: fromClient)
                return
            }
            if http2 != nil {
                http2?.skip(count, fromClient: fromClient)
                return
            }
        }
        withParser(fromClient: fromClient) { parser, sink in parser.skip(count, time: time, events: &sink) }
    }

    /// Reads both sides from their next message start: the capture began after the connection's first bytes.
    mutating func beginMidStream() {
        midStream = true
        parsers.requests.beginMidStream()
        parsers.responses.beginMidStream()
    }

    /// The client and server are the other way round from what the bytes so far were read as (the capture began
    /// mid-stream and the payload told): what each side's parser passed over while seeking goes to the other.
    mutating func swapRoles() {
        guard parsers.requests.isSeeking, parsers.responses.isSeeking else { return }
        parsers.requests.exchangeSeekProgress(with: &parsers.responses)
    }

    /// One side sent its FIN: a message of that side under way is cut short (a body delimited by the close ends),
    /// and when the server closed, so are the exchanges still waiting for its final response.
    mutating func closed(fromClient: Bool, time: Int64) {
        withParser(fromClient: fromClient) { parser, sink in parser.close(time: time, events: &sink) }
        if !fromClient { cutUnanswered() }
    }

    /// The connection was reset (by either side): messages under way are cut short, with the bytes that arrived,
    /// and so are the exchanges still waiting for a final response.
    mutating func reset(time: Int64) {
        withParser(fromClient: true) { parser, sink in parser.close(time: time, reset: true, events: &sink) }
        withParser(fromClient: false) { parser, sink in parser.close(time: time, reset: true, events: &sink) }
        cutUnanswered()
    }

    /// Marks the HTTP/1.x exchanges without a final response cut short.
    private mutating func cutUnanswered() {
        guard !mayHoldFrames, responsesDone < exchanges.count else { return }
        for i in responsesDone..<exchanges.count { exchanges[i].cutShort = true }
    }

    /// Runs `body` with one side's parser and this conversation as the sink of its events.
    private mutating func withParser(fromClient: Bool,
                                     _ body: (inout HTTPMessageParser, inout HTTPConversation) -> Void) {
        eventsFromClient = fromClient
        let parsers = self.parsers
        if fromClient { body(&parsers.requests, &self) } else { body(&parsers.responses, &self) }
    }

    /// Tells from the first payload bytes what the connection carries (TLS, h2c prior knowledge, HTTP/1.x).
    private mutating func detect(_ bytes: UnsafeRawBufferPointer, fromClient: Bool) {
        if bytes.count >= 2, bytes[0] == 0x16, bytes[1] == 0x03 {
            detected = .tls
            tls = TLSConversation()
            parsers.requests.stop()
            parsers.responses.stop()
        } else if fromClient, bytes.starts(with: "PRI ".utf8) {
            detected = .h2c
            http2 = HTTP2Conversation(targets: targets)
            parsers.requests.stop()
            parsers.responses.stop()
        } else if !fromClient, !midStream {
            detected = .other
            notes.append("the server spoke first: not HTTP/1.x")
            parsers.requests.stop()
            parsers.responses.stop()
        }
    }

    /// Applies one parser event to the exchanges.
    mutating func handle(_ event: HTTPMessageParser.Event) {
        if eventsFromClient { request(event) } else { response(event) }
    }

    /// A request-side event: a new exchange, its head, its end.
    private mutating func request(_ event: HTTPMessageParser.Event) {
        switch event {
        case .start(let time):
            var exchange = HTTPExchange(index: exchanges.count)
            exchange.requestStartAt = time
            let outstanding = exchanges.count - responsesDone
            exchange.pipelined = outstanding > 0
            exchange.pipelineDepth = outstanding + 1
            exchanges.append(exchange)
        case .head(let head, let headerBytes, _):
            if detected == nil { detected = .http1 }
            guard let last = exchanges.indices.last else { return }
            exchanges[last].method = head.method
            exchanges[last].target = head.target.map(targets.redact)
            exchanges[last].httpVersion = head.version
            exchanges[last].requestHeaderBytes = headerBytes
            if let method = head.method { parsers.responses.expectResponse(to: method) }
        case .end(let time, let bodyBytes):
            guard let last = exchanges.indices.last else { return }
            exchanges[last].requestEndAt = time
            exchanges[last].requestBodyBytes = bodyBytes
        case .http2Preface:
            detected = .h2c
            // The preface was counted as a request start: it is not an HTTP/1.x exchange.
            if exchanges.last?.method == nil, exchanges.count > responsesDone { exchanges.removeLast() }
            parsers.responses.stop()
        case .interim:
            break
        case .lost(let reason):
            if detected == nil { detected = .other }
            notes.append("requests not parsed further: \(reason)")
        case .cut(_, let bodyBytes):
            guard let last = exchanges.indices.last else { return }
            exchanges[last].requestBodyBytes = bodyBytes
            exchanges[last].cutShort = true
        case .resynced(let skipped):
            notes.append("the capture began inside the client's stream: \(skipped) bytes skipped before its first request line")
        }
    }

    /// A response-side event, paired with the oldest exchange still waiting for its final response.
    private mutating func response(_ event: HTTPMessageParser.Event) {
        switch event {
        case .start(let time):
            responseMessageStart = time
            if responsesDone == exchanges.count {
                // A response without a request in the capture.
                exchanges.append(HTTPExchange(index: exchanges.count))
            }
        case .interim(let status, let time):
            exchanges[responsesDone].interimStatuses.append(status)
            if exchanges[responsesDone].interimAt == nil { exchanges[responsesDone].interimAt = time }
            responseMessageStart = nil
        case .head(let head, let headerBytes, _):
            let i = responsesDone
            if detected == nil { detected = .http1 }  // only mid-stream can a response come first
            exchanges[i].responseStartAt = responseMessageStart
            exchanges[i].statusCode = head.status
            exchanges[i].responseHeaderBytes = headerBytes
            if exchanges[i].httpVersion == nil { exchanges[i].httpVersion = head.version }
            if head.status == 101 {
                if head.upgrade?.lowercased().hasPrefix("h2c") == true { detected = .h2c }
                parsers.requests.stop()
            }
        case .end(let time, let bodyBytes):
            exchanges[responsesDone].responseEndAt = time
            exchanges[responsesDone].responseBodyBytes = bodyBytes
            responsesDone += 1
            responseMessageStart = nil
        case .http2Preface:
            break
        case .lost(let reason):
            notes.append("responses not parsed further: \(reason)")
        case .cut(_, let bodyBytes):
            let i = responsesDone
            if exchanges[i].responseStartAt == nil { exchanges[i].responseStartAt = responseMessageStart }
            exchanges[i].responseBodyBytes = bodyBytes
            exchanges[i].cutShort = true
        case .resynced(let skipped):
            notes.append("the capture began inside the server's stream: \(skipped) bytes skipped before its first status line")
        }
    }
}
