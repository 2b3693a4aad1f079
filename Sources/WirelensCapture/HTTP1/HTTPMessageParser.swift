#if canImport(Glibc)
import Glibc
#endif

/// An incremental HTTP/1.x message parser for one direction of a connection, fed in-order bytes.
///
/// It keeps only the line being read (start line, a header, a chunk size); body bytes are counted, never kept.
/// A gap in the bytes (the capture missed them) is skipped inside a body of known length and ends parsing
/// anywhere else. A stream whose capture began after its first byte is read from its next message start (a
/// request line or a status line at the start of a line or of a delivery), the bytes before it skipped.
struct HTTPMessageParser {
    /// Which side's messages this parser reads.
    enum Role { case request, response }

    /// What the bytes fed so far completed, handed to an `HTTPMessageSink` as it happens (a final message head goes to
    /// its `head`, lent in place).
    enum Event {
        /// The first byte of a message (times in µs since the epoch).
        case start(time: Int64)
        /// An interim 1xx response head (100 Continue, 103 Early Hints); the final response follows.
        case interim(status: Int, time: Int64)
        /// The last byte of the message.
        case end(time: Int64, bodyBytes: Int64)
        /// The client sent the HTTP/2 connection preface (prior knowledge).
        case http2Preface(time: Int64)
        /// Parsing stopped; the reason is for the report.
        case lost(reason: String)
        /// The connection was reset, or the sender closed it, inside a message: `bodyBytes` arrived.
        case cut(time: Int64, bodyBytes: Int64)
        /// A stream whose capture began after its first byte reached its first message start, after
        /// `skippedBytes` bytes.
        case resynced(skippedBytes: Int64)
    }

    /// Where in a message the parser is.
    private enum State: Equatable {
        case idle, startLine, headers, body(Int64), chunkSize, chunkData(Int64), chunkDataEnd, trailers, untilClose
        /// The capture began after the stream's first byte: looking for a message start (`seek`).
        case seeking
        /// After a protocol switch or a tunnel, a reset or a close: the bytes are no longer HTTP/1.x.
        case stopped
        case lost
    }

    /// Lines longer than this end parsing (no HTTP server accepts them either).
    static let maxLine = 64 * 1024
    /// While seeking a message start, a line cut by a segment's end is kept to this length at most (longer ones are
    /// taken for body bytes): what a connection that began before the capture holds while it is not HTTP.
    static let maxSeekLine = 8 * 1024

    let role: Role
    /// False when the text of the start line is not wanted: `HTTPHead`'s method, target and versions then stay nil
    /// (its `methodKind` and `status` are still read).
    var readsText = true
    private var state = State.idle
    private var line: [UInt8] = []
    private var head = HTTPHead()
    private var headerBytes = 0
    private var bodyBytes: Int64 = 0
    /// Bytes passed over while seeking a message start.
    private var seekSkipped: Int64 = 0
    /// While seeking: the line being passed over is too long to be a start line (the rest of it is ignored).
    private var seekLongLine = false

    init(role: Role, readsText: Bool = true) {
        self.role = role
        self.readsText = readsText
    }

    /// True while bytes still mean something to this parser.
    var isActive: Bool {
        switch state {
        case .stopped, .lost: false
        default: true
        }
    }

    /// True while looking for a message start in a stream whose capture began after its first byte.
    var isSeeking: Bool { state == .seeking }

    /// The bytes passed over while looking for a message start that has not come (0 once one came).
    var unresolvedSkippedBytes: Int64 { state == .seeking ? seekSkipped : 0 }

    /// Reads the stream from its next message start: its capture began after its first byte.
    mutating func beginMidStream() {
        state = .seeking
    }

    /// Exchanges what two seeking parsers passed over so far (the connection's roles turned out the other way).
    mutating func exchangeSeekProgress(with other: inout HTTPMessageParser) {
        swap(&line, &other.line)
        swap(&seekSkipped, &other.seekSkipped)
        swap(&seekLongLine, &other.seekLongLine)
    }

    /// Where in the bytes of the last `feed` the message stream stopped being HTTP/1.x (after a 101 or a
    /// tunnel's 2xx): what follows belongs to the new protocol.
    private(set) var switchedAt: Int?

    /// Stops parsing for good (the connection switched protocols, or carries TLS).
    mutating func stop() {
        state = .stopped
    }

    /// Parses `bytes`, which arrived at `time`, and hands what they completed to `events`, in order (a final head
    /// through `events.head`; a response parser learns the method each final response answers, so that a HEAD's
    /// response is known to be bodiless, from `events.takeAwaitedMethod`).
    @inline(__always)
    mutating func feed(_ bytes: UnsafeRawBufferPointer, time: Int64, events: inout some HTTPMessageSink) {
        // Most deliveries inside a body of known length do not reach its end: counted here, without the call.
        if case .body(let remaining) = state, Int64(bytes.count) < remaining {
            bodyBytes += Int64(bytes.count)
            state = .body(remaining - Int64(bytes.count))
            return
        }
        feedAll(bytes, time: time, events: &events)
    }

    /// Parses `bytes` (`feed`), from whatever state the parser is in.
    @inline(never)
    private mutating func feedAll(_ bytes: UnsafeRawBufferPointer, time: Int64, events: inout some HTTPMessageSink) {
        var i = 0
        let count = bytes.count
        while i < count {
            switch state {
            case .idle:
                let b = bytes[i]
                if b == 13 || b == 10 {  // stray line ends between messages are allowed
                    i += 1
                    continue
                }
                events.handle(.start(time: time))
                state = .startLine
                if !line.isEmpty { line.removeAll(keepingCapacity: true) }  // usually empty: no call
                head.clear()
                headerBytes = 0
                bodyBytes = 0
            case .startLine, .headers, .chunkSize, .chunkDataEnd, .trailers:
                if case .headers = state, line.isEmpty {
                    i = readHeaders(bytes, from: i, time: time, events: &events)
                    if i == count { return }
                    if case .headers = state {} else { continue }
                    // A header line cut by the end of the bytes, or too long: read below.
                }
                let end = Self.newline(in: bytes, from: i)
                if state == .startLine || state == .headers { headerBytes += min(end + 1, count) - i }
                guard line.count + (end - i) <= Self.maxLine else {
                    lose("a line longer than \(Self.maxLine) bytes", &events)
                    return
                }
                if end == count {
                    // The line goes on in the next bytes: keep its start.
                    line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                    return
                }
                if line.isEmpty {
                    // The whole line is here (the common case): read it in place.
                    processLine(Self.trimmingCR(UnsafeRawBufferPointer(rebasing: bytes[i..<end])), time: time,
                                events: &events)
                } else {
                    line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                    var whole: [UInt8] = []
                    swap(&whole, &line)
                    whole.withUnsafeBytes { processLine(Self.trimmingCR($0), time: time, events: &events) }
                    swap(&whole, &line)
                    line.removeAll(keepingCapacity: true)
                }
                i = end + 1
            case .body(let remaining):
                let n = min(Int64(count - i), remaining)
                i += Int(n)
                bodyBytes += n
                if n == remaining { finish(time: time, events: &events) } else { state = .body(remaining - n) }
            case .chunkData(let remaining):
                let n = min(Int64(count - i), remaining)
                i += Int(n)
                bodyBytes += n
                state = n == remaining ? .chunkDataEnd : .chunkData(remaining - n)
            case .untilClose:
                bodyBytes += Int64(count - i)
                return
            case .seeking:
                i = seek(bytes, from: i, time: time, events: &events)
            case .stopped:
                if switchedAt == nil { switchedAt = i }
                return
            case .lost:
                return
            }
        }
    }

    /// Reads the header lines that lie whole in `bytes` from `start`, in place, one after another (without going
    /// through the state dispatch for each), up to the blank line that ends them; returns where it stopped: after
    /// that blank line, or at a line that the bytes cut or that is too long (for `feed` to read), or at the end.
    private mutating func readHeaders(_ bytes: UnsafeRawBufferPointer, from start: Int, time: Int64,
                                      events: inout some HTTPMessageSink) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var i = start
        let count = bytes.count
        // Indices stay within 0...count here, so their sums and differences cannot overflow (&+, &-). The lines read
        // are counted in `headerBytes` at once, when the loop stops.
        while i < count {
            let end = Self.newline(in: bytes, from: i)
            guard end < count, end &- i <= Self.maxLine else {
                headerBytes &+= i &- start
                return i
            }
            // The line without its line end (LF, or CR LF).
            let lineEnd = end > i && base.load(fromByteOffset: end &- 1, as: UInt8.self) == 13 ? end &- 1 : end
            let lineStart = i
            i = end &+ 1
            if lineEnd == lineStart {
                headerBytes &+= i &- start
                headersDone(time: time, events: &events)
                return i
            }
            // Most lines are passed over on their first byte and length alone, the others on their name.
            let line = UnsafeRawBufferPointer(start: base + lineStart, count: lineEnd &- lineStart)
            if let header = Self.framing(line) { parseHeader(line, header) }
        }
        headerBytes &+= i &- start
        return i
    }

    /// Which framing header `parseHeader` reads the header line `line` is (Content-Length, Transfer-Encoding,
    /// Upgrade), if any: most lines are passed over on their first letter (c, t or u in either case) and their length
    /// (more bytes than the shortest name and its colon), the others on their name.
    ///
    /// Only three names matter, of 7, 14 and 17 bytes: a line is one of them when its colon stands right after that
    /// many bytes that spell the name (a name holds no colon, so no earlier colon can precede a match). Other headers
    /// are passed over without a search for their colon.
    @inline(__always)
    private static func framing(_ line: UnsafeRawBufferPointer) -> Framing? {
        guard line.count > 7 else { return nil }
        switch line[0] | 0x20 {
        case 0x63: return named(line, "content-length") ? .contentLength : nil  // c
        case 0x74: return named(line, "transfer-encoding") ? .transferEncoding : nil  // t
        case 0x75: return named(line, "upgrade") ? .upgrade : nil  // u
        default: return nil
        }
    }

    /// Accounts for `count` bytes the capture did not hold: skipped inside a known-length body, fatal elsewhere.
    mutating func skip(_ count: Int64, time: Int64, events: inout some HTTPMessageSink) {
        guard count > 0 else { return }
        switch state {
        case .body(let remaining) where count <= remaining:
            bodyBytes += count
            if count == remaining { finish(time: time, events: &events) } else { state = .body(remaining - count) }
        case .chunkData(let remaining) where count <= remaining:
            bodyBytes += count
            state = count == remaining ? .chunkDataEnd : .chunkData(remaining - count)
        case .untilClose:
            bodyBytes += count
        case .seeking:
            // Whatever follows the gap is read as the start of a line.
            seekSkipped += count
            seekLongLine = false
            line.removeAll(keepingCapacity: true)
        case .stopped, .lost:
            return
        default:
            lose("\(count) bytes were not captured", &events)
        }
    }

    /// The sender closed its side, or (`reset`) the connection was reset: a body delimited by the close ends here
    /// (unless reset); any other message under way is cut short there, with the body bytes that arrived.
    mutating func close(time: Int64, reset: Bool = false, events: inout some HTTPMessageSink) {
        switch state {
        case .untilClose where !reset:
            finish(time: time, events: &events)
        case .startLine, .headers, .body, .chunkSize, .chunkData, .chunkDataEnd, .trailers, .untilClose:
            state = .stopped
            events.handle(.cut(time: time, bodyBytes: bodyBytes))
        case .idle, .seeking, .stopped, .lost:
            break
        }
    }

    /// Passes over `bytes` from `start` up to the next start line of this parser's role (which it then reads,
    /// going on with the headers); returns where it stopped. A start line is looked for at each line start, and
    /// at the start of each delivery (a body that does not end in a line end is followed by the next message,
    /// which usually begins a segment); a line cut by the end of `bytes` is kept (unless too long to be a start
    /// line), to be tested when its end comes.
    private mutating func seek(_ bytes: UnsafeRawBufferPointer, from start: Int, time: Int64,
                               events: inout some HTTPMessageSink) -> Int {
        var i = start
        let count = bytes.count
        if i == 0, !line.isEmpty || seekLongLine, Self.firstLineRole(bytes) == role {
            line.removeAll(keepingCapacity: true)
            seekLongLine = false
        }
        while i < count {
            let end = Self.newline(in: bytes, from: i)
            seekSkipped += Int64(min(end + 1, count) - i)
            if end == count {
                if !seekLongLine, line.count + (end - i) <= Self.maxSeekLine {
                    line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                } else {
                    seekLongLine = true
                    line.removeAll(keepingCapacity: true)
                }
                return count
            }
            if seekLongLine {
                seekLongLine = false
            } else if line.isEmpty {
                let whole = UnsafeRawBufferPointer(rebasing: bytes[i..<end])
                if Self.startLineRole(Self.trimmingCR(whole)) == role { resync(at: whole, time: time, events: &events) }
            } else {
                line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
                var whole: [UInt8] = []
                swap(&whole, &line)
                whole.withUnsafeBytes {
                    if Self.startLineRole(Self.trimmingCR($0)) == role { resync(at: $0, time: time, events: &events) }
                }
                swap(&whole, &line)
            }
            line.removeAll(keepingCapacity: true)
            i = end + 1
            if state != .seeking { return i }
        }
        return i
    }

    /// Starts the message whose start line (without its LF) ends the seeking.
    private mutating func resync(at startLine: UnsafeRawBufferPointer, time: Int64, events: inout some HTTPMessageSink) {
        seekSkipped -= Int64(startLine.count + 1)
        if seekSkipped > 0 { events.handle(.resynced(skippedBytes: seekSkipped)) }
        seekSkipped = 0
        events.handle(.start(time: time))
        state = .startLine
        head.clear()
        headerBytes = startLine.count + 1
        bodyBytes = 0
        processLine(Self.trimmingCR(startLine), time: time, events: &events)
    }

    /// Whose message begins with `line` (without its line end): a request line's, a status line's, or neither.
    static func startLineRole(_ line: UnsafeRawBufferPointer) -> Role? {
        guard let first = line.first else { return nil }
        var scratch = HTTPMessageParser(role: .request, readsText: false)
        if first == 72, scratch.parseStatusLine(line) { return .response }  // "H"
        if first >= 65 && first <= 90, scratch.parseRequestLine(line, text: { _ in "" }) { return .request }
        return nil
    }

    /// Whose message begins at the start of `bytes`, judged by their first line (nil when it does not end in them).
    static func firstLineRole(_ bytes: UnsafeRawBufferPointer) -> Role? {
        let end = newline(in: bytes, from: 0)
        guard end < bytes.count else { return nil }
        return startLineRole(trimmingCR(UnsafeRawBufferPointer(rebasing: bytes[..<end])))
    }

    /// Stops parsing for good, with the reason as an event.
    private mutating func lose(_ reason: String, _ events: inout some HTTPMessageSink) {
        state = .lost
        events.handle(.lost(reason: reason))
    }

    /// Ends the current message and waits for the next.
    private mutating func finish(time: Int64, events: inout some HTTPMessageSink) {
        events.handle(.end(time: time, bodyBytes: bodyBytes))
        state = .idle
    }

    /// The index of the first LF in `bytes` at or after `start`, or `bytes.count`.
    private static func newline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress else { return bytes.count }
        guard let found = memchr(base + start, 10, bytes.count - start) else { return bytes.count }
        return UnsafeRawPointer(found) - base
    }

    /// The index of the first space in `line` at or after `start`, if any.
    private static func space(in line: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < line.count, let base = line.baseAddress else { return nil }
        guard let found = memchr(base + start, 32, line.count - start) else { return nil }
        return UnsafeRawPointer(found) - base
    }

    /// The line without its trailing CR.
    private static func trimmingCR(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let last = line.last, last == 13 else { return line }
        return UnsafeRawBufferPointer(rebasing: line[..<(line.count - 1)])
    }

    /// Handles one complete line (without its line end).
    private mutating func processLine(_ line: UnsafeRawBufferPointer, time: Int64, events: inout some HTTPMessageSink) {
        switch state {
        case .startLine:
            let ok = role == .request ? parseRequestLine(line) { events.targetText($0) } : parseStatusLine(line)
            guard ok else {
                let shown = String(decoding: line.prefix(40), as: UTF8.self).filter { $0.isASCII && !$0.isNewline }
                lose("not an HTTP/1.x \(role == .request ? "request" : "status") line: '\(shown)'", &events)
                return
            }
            if role == .request, Self.isPreface(line) {
                state = .stopped
                events.handle(.http2Preface(time: time))
                return
            }
            state = .headers
        case .headers:
            if line.isEmpty {
                headersDone(time: time, events: &events)
            } else if let header = Self.framing(line) {
                parseHeader(line, header)
            }
        case .chunkSize:
            var size: Int64 = 0
            var digits = 0
            for b in line {
                guard let v = Self.hexValue(b) else { break }
                guard size < (1 << 56) else {
                    lose("a chunk size too large", &events)
                    return
                }
                size = size * 16 + Int64(v)
                digits += 1
            }
            guard digits > 0 else {
                lose("a bad chunk size line", &events)
                return
            }
            state = size == 0 ? .trailers : .chunkData(size)
        case .chunkDataEnd:
            guard line.isEmpty else {
                lose("chunk data longer than its size", &events)
                return
            }
            state = .chunkSize
        case .trailers:
            if line.isEmpty { finish(time: time, events: &events) }
        default:
            break
        }
    }

    private mutating func headersDone(time: Int64, events: inout some HTTPMessageSink) {
        switch role {
        case .request:
            events.head(&head, headerBytes: headerBytes, time: time)
            if head.chunked {
                state = .chunkSize
            } else if let length = head.contentLength, length > 0 {
                state = .body(length)
            } else {
                finish(time: time, events: &events)
            }
        case .response:
            let status = head.status ?? 0
            if status >= 100 && status < 200 && status != 101 {
                events.handle(.interim(status: status, time: time))
                state = .idle
                return
            }
            let method = events.takeAwaitedMethod()
            events.head(&head, headerBytes: headerBytes, time: time)
            if status == 101 || (method == .connect && status / 100 == 2) {
                finish(time: time, events: &events)
                state = .stopped
            } else if method == .head || status == 204 || status == 304 {
                finish(time: time, events: &events)
            } else if head.chunked {
                state = .chunkSize
            } else if head.otherTransferEncoding {
                state = .untilClose
            } else if let length = head.contentLength {
                if length > 0 { state = .body(length) } else { finish(time: time, events: &events) }
            } else {
                state = .untilClose
            }
        }
    }

    /// `METHOD SP target SP HTTP/x.y`.
    private mutating func parseRequestLine(_ line: UnsafeRawBufferPointer,
                                           text: (UnsafeRawBufferPointer) -> String) -> Bool {
        // Most requests are GETs: their method is known from one word, without a search for its end.
        let isGet = line.count > 4 && line.loadUnaligned(as: UInt32.self) == Self.getWord
        let first: Int
        if isGet {
            first = 3
        } else {
            guard let found = Self.space(in: line, from: 0) else { return false }
            first = found
        }
        guard let second = Self.space(in: line, from: first + 1) else { return false }
        let method = UnsafeRawBufferPointer(rebasing: line[..<first])
        let target = UnsafeRawBufferPointer(rebasing: line[(first + 1)..<second])
        let version = UnsafeRawBufferPointer(rebasing: line[(second + 1)...])
        guard isGet || (!method.isEmpty && method.count <= 32
                        && method.allSatisfy({ ($0 >= 65 && $0 <= 90) || $0 == 45 || $0 == 95 })),
              !target.isEmpty, Self.isVersion(version) else { return false }
        head.methodKind = isGet ? .other : Self.methodKind(method)
        guard readsText else { return true }
        head.method = isGet ? "GET" : Self.methodName(method)
        head.target = text(UnsafeRawBufferPointer(rebasing: target.prefix(2048)))
        head.version = Self.versionName(major: version[5], minor: version[7])
        return true
    }

    /// `GET ` as a little-endian word.
    private static var getWord: UInt32 { 0x2054_4547 }

    /// True when `line` (a valid request line) is the HTTP/2 connection preface's `PRI * HTTP/2.0`.
    private static func isPreface(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count == 14 && line.elementsEqual("PRI * HTTP/2.0".utf8)
    }

    /// `HTTP/x.y SP ddd [SP reason]`.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count >= 12, line[8] == 32, line.count == 12 || line[12] == 32,
              Self.isVersion(UnsafeRawBufferPointer(rebasing: line[..<8])) else { return false }
        let hundreds = line[9] &- 48, tens = line[10] &- 48, units = line[11] &- 48
        guard hundreds < 10, tens < 10, units < 10 else { return false }
        head.status = Int(hundreds) * 100 + Int(tens) * 10 + Int(units)
        // Its text is built only if an exchange shows it (`versionName`): most show their request's.
        if readsText { head.statusVersion = (line[5], line[7]) }
        return true
    }

    /// `HTTP/x.y`: its bytes but the two digits, compared as one word.
    @inline(__always)
    private static func isVersion(_ text: UnsafeRawBufferPointer) -> Bool {
        text.count == 8 && text.loadUnaligned(as: UInt64.self) & versionMask == versionWord
    }

    /// The bytes of `HTTP/x.y` but the digits x and y, and `HTTP/0.0` with them cleared, as little-endian words.
    private static var versionMask: UInt64 { 0x00FF_00FF_FFFF_FFFF }
    private static var versionWord: UInt64 { 0x002E_002F_5054_5448 }

    /// `HTTP/major.minor` (bytes as read) as text, without building a string for the common ones.
    static func versionName(major: UInt8, minor: UInt8) -> String {
        if major == 49 && minor == 49 { return "HTTP/1.1" }
        if major == 49 && minor == 48 { return "HTTP/1.0" }
        return String(decoding: [72, 84, 84, 80, 47, major, 46, minor], as: UTF8.self)
    }

    /// The method as text, without building a string for the common ones.
    private static func methodName(_ text: UnsafeRawBufferPointer) -> String {
        if text.count == 3 && text[0] == 71 && text[1] == 69 && text[2] == 84 { return "GET" }
        if text.count == 4 && text[0] == 80 && text[1] == 79 && text[2] == 83 && text[3] == 84 { return "POST" }
        return String(decoding: text, as: UTF8.self)
    }

    /// What the method means for the response's framing.
    private static func methodKind(_ text: UnsafeRawBufferPointer) -> HTTPHead.MethodKind {
        if text.count == 4 && text[0] == 72 && text[1] == 69 && text[2] == 65 && text[3] == 68 { return .head }
        if text.count == 7 && text.elementsEqual("CONNECT".utf8) { return .connect }
        return .other
    }

    /// Reads the value of a framing header (`framing`): Content-Length, Transfer-Encoding, Upgrade.
    private mutating func parseHeader(_ line: UnsafeRawBufferPointer, _ header: Framing) {
        var start = header.colon + 1
        var end = line.count
        while start < end, line[start] == 32 || line[start] == 9 { start += 1 }
        while end > start, line[end - 1] == 32 || line[end - 1] == 9 { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
        switch header {
        case .contentLength:
            var length: Int64 = 0
            var valid = !value.isEmpty
            for b in value {
                guard b >= 48 && b <= 57, length < (1 << 56) else {
                    valid = false
                    break
                }
                length = length * 10 + Int64(b - 48)
            }
            if valid { head.contentLength = length }
        case .transferEncoding:
            let codings = String(decoding: value, as: UTF8.self).lowercased()
                .split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) }
            if codings.last == "chunked" {
                head.chunked = true
            } else if !codings.isEmpty {
                head.otherTransferEncoding = true
            }
        case .upgrade:
            head.upgrade = String(decoding: value, as: UTF8.self)
        }
    }

    /// The framing headers read, by the length of their names (where their colon stands).
    private enum Framing {
        case contentLength, transferEncoding, upgrade

        var colon: Int {
            switch self {
            case .contentLength: 14
            case .transferEncoding: 17
            case .upgrade: 7
            }
        }
    }

    /// True when `line` is a header named `name` (lowercase, at least 4 bytes): the name, in any case, then a colon.
    ///
    /// Every byte of such a name has bit 0x20 set (lowercase letters, "-"), so a line's byte matches when it does with
    /// that bit set: the bytes are compared a word at a time, the last word overlapping the one before.
    @inline(__always)
    private static func named(_ line: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[count] == 58 else { return false }
        let expected = UnsafeRawPointer(name.utf8Start)
        if count < 8 {
            let lower: UInt32 = 0x2020_2020
            return line.loadUnaligned(as: UInt32.self) | lower == expected.loadUnaligned(as: UInt32.self)
                && line.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) | lower
                    == expected.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        let lower: UInt64 = 0x2020_2020_2020_2020
        var offset = 0
        while offset + 8 < count {
            guard line.loadUnaligned(fromByteOffset: offset, as: UInt64.self) | lower
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
            offset += 8
        }
        return line.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) | lower
            == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }
}
