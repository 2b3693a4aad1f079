import WirelensCaptureModel
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

    /// The two directions' parsers; their events go to `http1` (`withParser`).
    private var requests: HTTPMessageParser
    private var responses: HTTPMessageParser
    /// The exchanges the parsers' events build.
    private var http1: HTTP1Exchanges
    /// Masks secrets in request targets; shared by the connections of a capture.
    private var targets: TargetRedactor { http1.targets }
    /// The record-layer reading when the connection carries TLS (out of line: most connections have none).
    private var tlsBox: OutOfLine<TLSConversation>?
    /// The record-layer reading when the connection carries TLS.
    var tls: TLSConversation? { tlsBox?.value }

    /// The frame-layer reading when the connection speaks HTTP/2 with prior knowledge (or inside decrypted TLS),
    /// out of line: most connections have none.
    private var http2Box: OutOfLine<HTTP2Conversation>?
    /// The frame-layer reading when the connection speaks HTTP/2 with prior knowledge (or inside decrypted TLS).
    var http2: HTTP2Conversation? { http2Box?.value }
    /// The key log that decrypts TLS connections; nil reads them at the record layer only.
    private let keyLog: KeyLog?
    /// What the decrypted plaintext of a TLS connection holds, once its first bytes told.
    private var plaintextHTTP2: Bool?

    /// The capture began after the connection's first bytes: each side is read from its next message start, and
    /// the server's bytes may come first.
    private var midStream = false

    /// The HTTP/1.x exchanges read.
    var exchanges: [HTTPExchange] { http1.exchanges }
    /// What the connection carries, as far as its first bytes tell.
    var detected: Detected? { http1.detected }
    /// What stopped the HTTP/1.x parsing, for the report.
    var notes: [String] { http1.notes }

    /// The exchanges of the TLS reading (inferred: its records were not decrypted) or of the HTTP/2 reading, when
    /// the connection has one; nil when its exchanges are HTTP/1.x (`http1`).
    private var framedExchanges: [HTTPExchange]? {
        if mayHoldFrames, let tls = tlsBox, !tls.value.decrypts { return tls.value.exchanges }
        return http2Box?.value.exchanges
    }
    /// The exchanges read or inferred (a TLS connection's are inferred unless its records were decrypted).
    var allExchanges: [HTTPExchange] { framedExchanges ?? exchanges }
    /// Exchanges read or inferred so far, HTTP/1.x ones folded (`HTTP1Exchanges`) included.
    var exchangeTotal: Int { framedExchanges?.count ?? http1.count }
    /// What the summary counts of the exchanges read or inferred, HTTP/1.x ones folded included.
    var exchangeTally: ExchangeTally { framedExchanges.map(ExchangeTally.init(of:)) ?? http1.tally }
    /// Appends the notes of the HTTP, HTTP/2 and TLS readings to `notes` (no array built when there are none, as
    /// for most connections).
    func appendNotes(to notes: inout [String]) {
        notes.append(contentsOf: http1.notes)
        if midStream, !mayHoldFrames {
            for (side, skipped) in [("client", requests.unresolvedSkippedBytes),
                                    ("server", responses.unresolvedSkippedBytes)] where skipped > 0 {
                notes.append("the capture began inside the \(side)'s stream: none of its \(skipped) bytes began an "
                    + "HTTP/1.x message")
            }
        }
        if let tls = tlsBox { notes.append(contentsOf: tls.value.notes) }
        if let http2 = http2Box { notes.append(contentsOf: http2.value.notes) }
    }

    /// True when the connection was detected as TLS or h2c: only then can `tls` or `http2` be set, and only then
    /// are they looked into (testing those optionals copies them, on every segment).
    private var mayHoldFrames: Bool { detected == .tls || detected == .h2c }

    /// A conversation whose request targets go through `targets` (one per capture, so that the query names it
    /// has found harmless serve every connection); without `keepsExchanges`, its finished HTTP/1.x exchanges are
    /// only counted (`HTTP1Exchanges`) and the text of their start lines (method, target, version) not read.
    init(targets: TargetRedactor = TargetRedactor(), keyLog: KeyLog? = nil, keepsExchanges: Bool = true) {
        http1 = HTTP1Exchanges(targets: targets, keepsAll: keepsExchanges)
        requests = HTTPMessageParser(role: .request, readsText: keepsExchanges)
        responses = HTTPMessageParser(role: .response, readsText: keepsExchanges)
        self.keyLog = keyLog
    }

    /// True while bytes from that side are still parsed (so that reordered segments are worth keeping).
    ///
    /// Mutating so that the connection asks its conversation in place: a non-mutating call copied the whole
    /// conversation (and released the copy) on every segment.
    ///
    /// Short, so that it is inlined where the connection asks (on every segment); a TLS or HTTP/2 reading is asked
    /// apart (`framedWantsBytes`).
    @inline(__always)
    mutating func wantsBytes(fromClient: Bool) -> Bool {
        if mayHoldFrames, let wanted = framedWantsBytes(fromClient: fromClient) { return wanted }
        return fromClient ? requests.isActive : responses.isActive
    }

    /// Whether the TLS or HTTP/2 reading wants more bytes from that side; nil when the connection has neither.
    @inline(never)
    private mutating func framedWantsBytes(fromClient: Bool) -> Bool? {
        if let wanted = tlsBox?.value.wantsBytes(fromClient: fromClient) { return wanted }
        return http2Box?.value.wantsBytes(fromClient: fromClient)
    }

    /// Bytes in order from one side, arrived at `time` (µs).
    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) {
        guard !bytes.isEmpty else { return }
        if detected == nil { detect(bytes, fromClient: fromClient) }
        if mayHoldFrames, receiveFramed(bytes, fromClient: fromClient, time: time) { return }
        withParser(fromClient: fromClient) { parser, sink in parser.feed(bytes, time: time, events: &sink) }
        if !fromClient, detected == .h2c { upgradeToHTTP2(after: bytes, time: time) }
    }

    /// Hands `bytes` to the TLS or HTTP/2 reading, when the connection has one; false when it has neither (the
    /// bytes are then HTTP/1.x). Apart from `receive`, whose common path (HTTP/1.x) it keeps short.
    @inline(never)
    private mutating func receiveFramed(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) -> Bool {
        if tlsBox != nil {
            guard keyLog != nil else {
                tlsBox?.value.receive(bytes, fromClient: fromClient, time: time) { _, _, _, _, _ in }
                return true
            }
            // The TLS reading is moved out while it runs, so that its plaintext can go to this conversation's
            // HTTP reading (swapped, not copied: its box stays the only reference, changed in place).
            var reading: OutOfLine<TLSConversation>?
            swap(&reading, &tlsBox)
            reading?.value.receive(bytes, fromClient: fromClient, time: time) { plain, client, start, end, alpn in
                decrypted(plain, fromClient: client, start: start, end: end, alpn: alpn)
            }
            swap(&reading, &tlsBox)
            return true
        }
        if http2Box != nil {
            http2Box?.value.receive(bytes, fromClient: fromClient, time: time)
            return true
        }
        return false
    }

    /// After the server's `bytes`: a 101 to h2c makes it HTTP/2 from here on, both ways. The server's frames may
    /// follow the 101 in the same bytes (or come in later ones: the parsers have stopped, so the switch cannot wait
    /// for them).
    @inline(never)
    private mutating func upgradeToHTTP2(after bytes: UnsafeRawBufferPointer, time: Int64) {
        guard http2Box == nil, let upgrade = exchanges.last(where: { $0.statusCode == 101 }) else { return }
        http2Box = OutOfLine(HTTP2Conversation(upgrading: upgrade, targets: targets))
        if let offset = responses.switchedAt, offset < bytes.count {
            http2Box?.value.receive(UnsafeRawBufferPointer(rebasing: bytes[offset...]), fromClient: false, time: time)
        }
    }

    /// Decrypted application data of a TLS connection: read as HTTP/2 when the server chose h2 or the client's
    /// first bytes are the connection preface, else as HTTP/1.x. The record's bytes but its last count from the
    /// record's first piece (`start`), its last byte from its last piece (`end`).
    private mutating func decrypted(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, start: Int64, end: Int64,
                                    alpn: String?) {
        guard !bytes.isEmpty else { return }
        if plaintextHTTP2 == nil {
            let h2 = alpn == "h2" || (fromClient && bytes.starts(with: "PRI * HTTP/2.0".utf8.prefix(bytes.count)))
            plaintextHTTP2 = h2
            if h2 {
                http2Box = OutOfLine(HTTP2Conversation(targets: targets))
                requests.stop()
                responses.stop()
            }
        }
        let parts = start == end || bytes.count == 1
            ? [(bytes, end)]
            : [(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 1)]), start),
               (UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - 1)...]), end)]
        for (part, time) in parts {
            if plaintextHTTP2 == true {
                http2Box?.value.receive(part, fromClient: fromClient, time: time)
            } else {
                withParser(fromClient: fromClient) { parser, sink in parser.feed(part, time: time, events: &sink) }
            }
        }
    }

    /// `count` bytes from one side that the capture did not hold.
    mutating func skip(_ count: Int64, fromClient: Bool, time: Int64) {
        if mayHoldFrames {
            if tlsBox != nil {
                tlsBox?.value.skip(count, fromClient: fromClient)
                return
            }
            if http2Box != nil {
                http2Box?.value.skip(count, fromClient: fromClient)
                return
            }
        }
        withParser(fromClient: fromClient) { parser, sink in parser.skip(count, time: time, events: &sink) }
    }

    /// Reads both sides from their next message start: the capture began after the connection's first bytes.
    mutating func beginMidStream() {
        midStream = true
        requests.beginMidStream()
        responses.beginMidStream()
    }

    /// The client and server are the other way round from what the bytes so far were read as (the capture began
    /// mid-stream and the payload told): what each side's parser passed over while seeking goes to the other.
    mutating func swapRoles() {
        guard requests.isSeeking, responses.isSeeking else { return }
        requests.exchangeSeekProgress(with: &responses)
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
        guard !mayHoldFrames || plaintextHTTP2 == false else { return }
        http1.cutUnanswered()
    }

    /// Runs `body` with one side's parser and the exchanges as the sink of its events (the response parser takes the
    /// methods of the requests read from them), then does what the events asked of the other side's parser.
    private mutating func withParser(fromClient: Bool,
                                     _ body: (inout HTTPMessageParser, inout HTTP1Exchanges) -> Void) {
        http1.fromClient = fromClient
        if fromClient { body(&requests, &http1) } else { body(&responses, &http1) }
        if http1.stopsResponses {
            responses.stop()
            http1.stopsResponses = false
        }
        if http1.stopsRequests {
            requests.stop()
            http1.stopsRequests = false
        }
    }

    /// Tells from the first payload bytes what the connection carries (TLS, h2c prior knowledge, HTTP/1.x).
    private mutating func detect(_ bytes: UnsafeRawBufferPointer, fromClient: Bool) {
        if bytes.count >= 2, bytes[0] == 0x16, bytes[1] == 0x03 {
            http1.detected = .tls
            tlsBox = OutOfLine(TLSConversation(keyLog: keyLog))
            // With a key log the parsers wait for the decrypted plaintext.
            if keyLog == nil {
                requests.stop()
                responses.stop()
            }
        } else if fromClient, bytes.starts(with: "PRI ".utf8) {
            http1.detected = .h2c
            http2Box = OutOfLine(HTTP2Conversation(targets: targets))
            requests.stop()
            responses.stop()
        } else if !fromClient, !midStream {
            http1.detected = .other
            http1.notes.append("the server spoke first: not HTTP/1.x")
            requests.stop()
            responses.stop()
        }
    }
}
