import WirelensCore

/// The HTTP/1.x exchanges of one TCP connection, built from its two in-order byte streams (or, when the
/// connection carries TLS, the exchanges its TLS records imply).
///
/// Requests and responses pair in order: the n-th final response answers the n-th request, so several
/// requests in one segment are several exchanges, each with its own response.
struct HTTPConversation {
    /// What the connection carries, as far as its first bytes tell.
    enum Detected: String {
        case http1 = "http/1.x", h2c, tls, other
    }

    private var requests = HTTPMessageParser(role: .request)
    private var responses = HTTPMessageParser(role: .response)
    private(set) var exchanges: [HTTPExchange] = []
    /// Exchanges whose final response has ended.
    private var responsesDone = 0
    /// Start of the response message being read (it may turn out to be an interim 1xx).
    private var responseMessageStart: Int64?
    private(set) var detected: Detected?
    /// What stopped the parsing, for the report.
    private(set) var notes: [String] = []
    private var scratch: [HTTPMessageParser.Event] = []
    /// Query parameter names already found harmless on this connection.
    private var harmlessNames = HarmlessNames()
    /// The record-layer reading when the connection carries TLS.
    private(set) var tls: TLSConversation?

    /// The frame-layer reading when the connection speaks HTTP/2 with prior knowledge.
    private(set) var http2: HTTP2Conversation?

    /// The exchanges read or inferred.
    var allExchanges: [HTTPExchange] { tls?.exchanges ?? http2?.exchanges ?? exchanges }
    /// Notes of the HTTP, HTTP/2 and TLS readings.
    var allNotes: [String] { notes + (tls?.notes ?? []) + (http2?.notes ?? []) }

    /// True while bytes from that side are still parsed (so that reordered segments are worth keeping).
    func wantsBytes(fromClient: Bool) -> Bool {
        if let tls { return tls.wantsBytes(fromClient: fromClient) }
        if let http2 { return http2.wantsBytes(fromClient: fromClient) }
        return fromClient ? requests.isActive : responses.isActive
    }

    /// Bytes in order from one side, arrived at `time` (µs).
    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) {
        guard !bytes.isEmpty else { return }
        if detected == nil { detect(bytes, fromClient: fromClient) }
        if tls != nil {
            tls?.receive(bytes, fromClient: fromClient, time: time)
            return
        }
        if http2 != nil {
            http2?.receive(bytes, fromClient: fromClient, time: time)
            return
        }
        var events = take()
        if fromClient {
            requests.feed(bytes, time: time, events: &events)
        } else {
            responses.feed(bytes, time: time, events: &events)
        }
        apply(events, fromClient: fromClient)
        // A 101 to h2c: the server's frames may follow the 101 in the same bytes.
        if !fromClient, detected == .h2c, http2 == nil, let offset = responses.switchedAt,
           let upgrade = exchanges.last(where: { $0.statusCode == 101 }) {
            http2 = HTTP2Conversation(upgrading: upgrade)
            if offset < bytes.count {
                http2?.receive(UnsafeRawBufferPointer(rebasing: bytes[offset...]), fromClient: false, time: time)
            }
        }
    }

    /// `count` bytes from one side that the capture did not hold.
    mutating func skip(_ count: Int64, fromClient: Bool, time: Int64) {
        if tls != nil {
            tls?.skip(count, fromClient: fromClient)
            return
        }
        if http2 != nil {
            http2?.skip(count, fromClient: fromClient)
            return
        }
        var events = take()
        if fromClient {
            requests.skip(count, time: time, events: &events)
        } else {
            responses.skip(count, time: time, events: &events)
        }
        apply(events, fromClient: fromClient)
    }

    /// One side sent its FIN (or the connection was reset).
    mutating func closed(fromClient: Bool, time: Int64) {
        var events = take()
        if fromClient {
            requests.close(time: time, events: &events)
        } else {
            responses.close(time: time, events: &events)
        }
        apply(events, fromClient: fromClient)
    }

    /// The target with secret-looking query values masked. Most targets have no query, or only harmless
    /// parameter names: those skip the Redactor's (Foundation-based) rewriting, which costs more than parsing.
    static func redacted(_ target: String) -> String {
        var names = HarmlessNames()
        return redacted(target, harmless: &names)
    }

    /// Query parameter names a connection's requests were found to use harmlessly (its requests repeat them).
    struct HarmlessNames {
        var names = Set<String>()
        /// The names of the last harmless query, in order, joined by `&`: the next request usually repeats them.
        var lastQueryNames: [UInt8] = []
        var scratch: [UInt8] = []
    }

    /// The same, remembering names found harmless.
    static func redacted(_ target: String, harmless: inout HarmlessNames) -> String {
        var text = target
        let masked = text.withUTF8 { bytes -> Bool in
            let ampersand = UInt8(ascii: "&"), hash = UInt8(ascii: "#"), equals = UInt8(ascii: "=")
            guard let mark = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == hash }) else {
                return bytes.contains(UInt8(ascii: "@"))
            }
            let rest = UnsafeBufferPointer(rebasing: bytes[(mark + 1)...])
            if rest.contains(UInt8(ascii: "%")) || bytes.contains(UInt8(ascii: "@")) { return true }
            // The parameter names, in order: when they are the last harmless query's, nothing to look up.
            var names = harmless.scratch
            names.removeAll(keepingCapacity: true)
            var i = 0
            var inName = true
            while i < rest.count {
                let b = rest[i]
                if b == ampersand || b == hash {
                    names.append(ampersand)
                    inName = true
                } else if b == equals {
                    inName = false
                } else if inName {
                    names.append(b)
                }
                i += 1
            }
            defer { harmless.scratch = names }
            if names == harmless.lastQueryNames { return false }
            for part in names.split(separator: ampersand, omittingEmptySubsequences: false) {
                let name = String(decoding: part, as: UTF8.self)
                if harmless.names.contains(name) { continue }
                if Redactor.isSensitive(name: name) { return true }
                if harmless.names.count < 256 { harmless.names.insert(name) }
            }
            swap(&harmless.lastQueryNames, &names)
            return false
        }
        return masked ? Redactor.url(target) : target
    }

    /// The reusable event buffer, emptied.
    private mutating func take() -> [HTTPMessageParser.Event] {
        var events: [HTTPMessageParser.Event] = []
        swap(&events, &scratch)
        events.removeAll(keepingCapacity: true)
        return events
    }

    /// Tells from the first payload bytes what the connection carries (TLS, h2c prior knowledge, HTTP/1.x).
    private mutating func detect(_ bytes: UnsafeRawBufferPointer, fromClient: Bool) {
        if bytes.count >= 2, bytes[0] == 0x16, bytes[1] == 0x03 {
            detected = .tls
            tls = TLSConversation()
            requests.stop()
            responses.stop()
        } else if fromClient, bytes.starts(with: "PRI ".utf8) {
            detected = .h2c
            http2 = HTTP2Conversation()
            requests.stop()
            responses.stop()
        } else if !fromClient {
            detected = .other
            notes.append("the server spoke first: not HTTP/1.x")
            requests.stop()
            responses.stop()
        }
    }

    /// Applies parser events to the exchanges, in order.
    private mutating func apply(_ events: [HTTPMessageParser.Event], fromClient: Bool) {
        for event in events {
            if fromClient { request(event) } else { response(event) }
        }
        scratch = events
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
            exchanges[last].target = head.target.map { Self.redacted($0, harmless: &harmlessNames) }
            exchanges[last].httpVersion = head.version
            exchanges[last].requestHeaderBytes = headerBytes
            if let method = head.method { responses.expectResponse(to: method) }
        case .end(let time, let bodyBytes):
            guard let last = exchanges.indices.last else { return }
            exchanges[last].requestEndAt = time
            exchanges[last].requestBodyBytes = bodyBytes
        case .http2Preface:
            detected = .h2c
            // The preface was counted as a request start: it is not an HTTP/1.x exchange.
            if exchanges.last?.method == nil, exchanges.count > responsesDone { exchanges.removeLast() }
            responses.stop()
        case .interim:
            break
        case .lost(let reason):
            if detected == nil { detected = .other }
            notes.append("requests not parsed further: \(reason)")
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
            exchanges[i].responseStartAt = responseMessageStart
            exchanges[i].statusCode = head.status
            exchanges[i].responseHeaderBytes = headerBytes
            if exchanges[i].httpVersion == nil { exchanges[i].httpVersion = head.version }
            if head.status == 101 {
                if head.upgrade?.lowercased().hasPrefix("h2c") == true { detected = .h2c }
                requests.stop()
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
        }
    }
}
