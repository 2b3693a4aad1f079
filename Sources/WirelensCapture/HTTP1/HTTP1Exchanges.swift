import WirelensCaptureModel
import WirelensCore

/// The HTTP/1.x exchanges of a connection as its two parsers' events build them: the sink of those events.
///
/// A value apart from the parsers, so that a parser runs while its events update this in place (two separate
/// stored values of the conversation, no overlap). The methods of the requests read are kept here for the response
/// parser, which takes them as it reads final responses (`takeAwaitedMethod`); a stop asked of the other side's
/// parser is noted here and applied by the conversation once the running parser returns: the other parser does not
/// run meanwhile.
///
/// A connection that is never handed over (`keepsAll` false: the text summary lists only the first ones) keeps only
/// the exchanges still under way: when another exchange starts, those whose final response has ended are folded into
/// `foldedTally` (what the summary counts of them) and dropped, and the request targets are not read.
struct HTTP1Exchanges: HTTPMessageSink {
    /// The exchanges from number `folded` on (all of them when `keepsAll`).
    private(set) var exchanges: [HTTPExchange] = []
    /// Exchanges folded into `foldedTally` and dropped from the front of `exchanges`.
    private(set) var folded = 0
    private(set) var foldedTally = ExchangeTally()
    /// False when finished exchanges are folded, not kept.
    let keepsAll: Bool
    /// A 101 was read: nothing more is folded (a switch to h2c reads the exchanges).
    private var switched = false
    /// Exchanges whose final response has ended.
    private(set) var responsesDone = 0
    /// Start of the response message being read (it may turn out to be an interim 1xx).
    private var responseMessageStart: Int64?
    /// What the connection carries, as far as its bytes tell.
    var detected: HTTPConversation.Detected?
    /// What stopped the parsing, for the report.
    var notes: [String] = []
    /// Which side's parser is handing over events.
    var fromClient = true
    /// Masks secrets in request targets; shared by the connections of a capture.
    let targets: TargetRedactor
    /// The methods of the requests read, by number, for the response parser (`takeAwaitedMethod`): `methodsRead` of
    /// them, `methodsTaken` taken. Most are neither HEAD nor CONNECT: only those (by their number) are listed, in
    /// `specialMethods`, from number `specialsTaken` on not taken yet.
    private var methodsRead = 0
    private var methodsTaken = 0
    private var specialMethods: [(number: Int, kind: HTTPHead.MethodKind)] = []
    private var specialsTaken = 0
    /// The response parser, or the request parser, must stop (h2c prior knowledge; a 101).
    var stopsResponses = false
    var stopsRequests = false

    /// Exchanges a kept connection has room for from its second one.
    static let firstCapacity = 8

    init(targets: TargetRedactor, keepsAll: Bool = true) {
        self.targets = targets
        self.keepsAll = keepsAll
    }

    /// The text of a request target the parser read, redacted (through `targets`' table of the targets seen).
    func targetText(_ bytes: UnsafeRawBufferPointer) -> String {
        targets.redact(bytes)
    }

    /// Exchanges read so far, folded ones included.
    var count: Int { folded + exchanges.count }

    /// What the summary counts of the exchanges read (folded ones included).
    var tally: ExchangeTally {
        var result = foldedTally
        exchanges.withUnsafeBufferPointer { result.add($0) }
        return result
    }

    /// Exchange number `i` (not folded).
    private subscript(i: Int) -> HTTPExchange {
        _read { yield exchanges[i - folded] }
        _modify { yield &exchanges[i - folded] }
    }

    /// Marks the exchanges without a final response cut short.
    mutating func cutUnanswered() {
        guard responsesDone < count else { return }
        for i in responsesDone..<count { self[i].cutShort = true }
    }

    /// Starts exchange number `count`, folding first (when not `keepsAll`) those whose final response has ended:
    /// no event changes them once another exchange is the last.
    private mutating func appendExchange() {
        let done = responsesDone - folded
        guard !keepsAll, !switched, done > 0 else {
            // Room for several from the second (a connection with two usually carries more): growing one step at
            // a time moved the exchanges four or five times. A connection of one exchange keeps room for one, so
            // many of them open at once hold no more than before.
            if exchanges.count == 1, exchanges.capacity < Self.firstCapacity {
                exchanges.reserveCapacity(Self.firstCapacity)
            }
            exchanges.append(HTTPExchange(index: count))
            return
        }
        exchanges.withUnsafeBufferPointer { foldedTally.add(UnsafeBufferPointer(rebasing: $0[..<done])) }
        folded += done
        if done == 1 && exchanges.count == 1 {
            // The usual case: the one exchange kept is replaced in place.
            exchanges[0] = HTTPExchange(index: count)
            return
        }
        exchanges.removeFirst(done)
        exchanges.append(HTTPExchange(index: count))
    }

    /// Applies one parser event to the exchanges.
    mutating func handle(_ event: HTTPMessageParser.Event) {
        if fromClient { request(event) } else { response(event) }
    }

    /// A final message head: the request's, or the final response's (paired with the oldest exchange still waiting
    /// for it). Its strings are swapped into the exchange (whose fields are still nil): neither copied nor released.
    mutating func head(_ head: inout HTTPHead, headerBytes: Int, time: Int64) {
        if detected == nil { detected = .http1 }  // only mid-stream can a response come first
        if fromClient {
            guard !exchanges.isEmpty else { return }
            // A request head always has a method (its line was parsed as a request line).
            if head.methodKind != .other { specialMethods.append((methodsRead, head.methodKind)) }
            methodsRead += 1
            Self.fillRequest(&exchanges[exchanges.count - 1], head: &head, headerBytes: headerBytes, keepsAll: keepsAll)
        } else {
            let start = responseMessageStart, keepsAll = keepsAll
            Self.fillResponse(&self[responsesDone], head: &head, headerBytes: headerBytes, start: start,
                              keepsAll: keepsAll)
            if head.status == 101 {
                switched = true
                if head.upgrade?.lowercased().hasPrefix("h2c") == true { detected = .h2c }
                stopsRequests = true
            }
        }
    }

    /// The kind of the oldest awaited request method, taken (nil when none is awaited).
    mutating func takeAwaitedMethod() -> HTTPHead.MethodKind? {
        guard methodsTaken < methodsRead else { return nil }
        let number = methodsTaken
        methodsTaken += 1
        guard specialsTaken < specialMethods.count, specialMethods[specialsTaken].number == number else { return .other }
        let kind = specialMethods[specialsTaken].kind
        specialsTaken += 1
        if specialsTaken == specialMethods.count {
            specialMethods.removeAll(keepingCapacity: true)
            specialsTaken = 0
        }
        return kind
    }

    /// Writes a request head into its exchange (one access to it). Without `keepsAll` the parsers read no
    /// start-line text (`HTTPMessageParser.readsText`): nothing shown.
    private static func fillRequest(_ exchange: inout HTTPExchange, head: inout HTTPHead, headerBytes: Int,
                                    keepsAll: Bool) {
        exchange.requestHeaderBytes = headerBytes
        guard keepsAll else { return }
        swap(&exchange.method, &head.method)
        // The target's text came from `targetText`: redacted.
        swap(&exchange.target, &head.target)
        swap(&exchange.httpVersion, &head.version)
    }

    /// Writes a final response head into its exchange (one access to it).
    private static func fillResponse(_ exchange: inout HTTPExchange, head: inout HTTPHead, headerBytes: Int,
                                     start: Int64?, keepsAll: Bool) {
        exchange.responseStartAt = start
        exchange.statusCode = head.status
        exchange.responseHeaderBytes = headerBytes
        if keepsAll, exchange.httpVersion == nil, let version = head.statusVersion {
            exchange.httpVersion = HTTPMessageParser.versionName(major: version.major, minor: version.minor)
        }
    }

    /// A request-side event: a new exchange, its end.
    private mutating func request(_ event: HTTPMessageParser.Event) {
        switch event {
        case .start(let time):
            let outstanding = count - responsesDone
            // Appended, then filled in place (no copy of the exchange).
            appendExchange()
            Self.started(&exchanges[exchanges.count - 1], at: time, outstanding: outstanding)
        case .end(let time, let bodyBytes):
            guard !exchanges.isEmpty else { return }
            Self.requestEnded(&exchanges[exchanges.count - 1], at: time, bodyBytes: bodyBytes)
        case .http2Preface:
            detected = .h2c
            // The preface was counted as a request start: it is not an HTTP/1.x exchange.
            // (A request with a head has a method, and header bytes; the preface has neither.)
            if let last = exchanges.indices.last, exchanges[last].requestHeaderBytes == 0, count > responsesDone {
                exchanges.removeLast()
            }
            stopsResponses = true
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

    /// Fills a new exchange's request start (one access to it).
    private static func started(_ exchange: inout HTTPExchange, at time: Int64, outstanding: Int) {
        exchange.requestStartAt = time
        exchange.pipelined = outstanding > 0
        exchange.pipelineDepth = outstanding + 1
    }

    /// Fills an exchange's request end (one access to it).
    private static func requestEnded(_ exchange: inout HTTPExchange, at time: Int64, bodyBytes: Int64) {
        exchange.requestEndAt = time
        exchange.requestBodyBytes = bodyBytes
    }

    /// Fills an exchange's final response end (one access to it).
    private static func responseEnded(_ exchange: inout HTTPExchange, at time: Int64, bodyBytes: Int64) {
        exchange.responseEndAt = time
        exchange.responseBodyBytes = bodyBytes
    }

    /// A response-side event, paired with the oldest exchange still waiting for its final response.
    private mutating func response(_ event: HTTPMessageParser.Event) {
        switch event {
        case .start(let time):
            responseMessageStart = time
            if responsesDone == count {
                // A response without a request in the capture.
                appendExchange()
            }
        case .interim(let status, let time):
            self[responsesDone].interimStatuses.append(status)
            if self[responsesDone].interimAt == nil { self[responsesDone].interimAt = time }
            responseMessageStart = nil
        case .end(let time, let bodyBytes):
            Self.responseEnded(&self[responsesDone], at: time, bodyBytes: bodyBytes)
            responsesDone += 1
            responseMessageStart = nil
        case .http2Preface:
            break
        case .lost(let reason):
            notes.append("responses not parsed further: \(reason)")
        case .cut(_, let bodyBytes):
            let i = responsesDone
            if self[i].responseStartAt == nil { self[i].responseStartAt = responseMessageStart }
            self[i].responseBodyBytes = bodyBytes
            self[i].cutShort = true
        case .resynced(let skipped):
            notes.append("the capture began inside the server's stream: \(skipped) bytes skipped before its first status line")
        }
    }
}
