import WirelensCaptureModel

/// An HTTP/2 connection in clear text (prior knowledge): frames each way, one exchange per stream with its
/// method, path and status from the decoded headers.
struct HTTP2Conversation {
    /// The frame layer of one direction.
    private struct Direction {
        var prefaceLeft = 0
        var header: [UInt8] = []
        var type: UInt8 = 0
        var flags: UInt8 = 0
        var stream: UInt32 = 0
        var length = 0
        var remaining = 0
        var payload: [UInt8] = []
        /// Header block being collected across HEADERS and CONTINUATION frames: stream and bytes.
        var blockStream: UInt32 = 0
        var block: [UInt8] = []
        var blockEndsStream = false
        var lost = false
        let decoder = HPACKDecoder()
    }

    /// Frame payloads kept at most (HEADERS, CONTINUATION); larger frames end the reading of that direction.
    static let maxKeptPayload = 1 << 20
    static let prefaceLength = 24

    private var client = Direction(prefaceLeft: HTTP2Conversation.prefaceLength)
    private var server = Direction()
    private(set) var exchanges: [HTTPExchange] = []
    private var streamIndex: [UInt32: Int] = [:]
    private var open = Set<UInt32>()
    private(set) var summary = HTTP2Summary()
    private(set) var notes: [String] = []
    /// Masks secrets in the `:path` of requests; the capture's one.
    private let targets: TargetRedactor

    /// Prior knowledge: the client's first bytes are the connection preface.
    init(targets: TargetRedactor) {
        self.targets = targets
    }

    /// After an HTTP/1.1 Upgrade to h2c: the upgraded request is stream 1, answered in frames; the client's
    /// preface follows the 101.
    init(upgrading request: HTTPExchange, targets: TargetRedactor) {
        self.targets = targets
        var exchange = request
        exchange.stream = 1
        exchange.httpVersion = "HTTP/2"
        exchange.interimStatuses = [101]
        exchange.interimAt = request.responseStartAt
        exchange.statusCode = nil
        exchange.responseStartAt = nil
        exchange.responseEndAt = nil
        exchange.responseHeaderBytes = 0
        exchange.responseBodyBytes = 0
        exchanges = [exchange]
        streamIndex[1] = 0
        open = [1]
        summary.streams = 1
        summary.maxConcurrentStreams = 1
    }

    /// True while that side's frames can still be followed.
    func wantsBytes(fromClient: Bool) -> Bool { !(fromClient ? client.lost : server.lost) }

    /// In-order bytes from one side, arrived at `time` (µs).
    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) {
        var frames: [(type: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8], length: Int)] = []
        if fromClient {
            Self.frames(bytes, &client) { frames.append(($0, $1, $2, $3, $4)) }
        } else {
            Self.frames(bytes, &server) { frames.append(($0, $1, $2, $3, $4)) }
        }
        for f in frames { frame(f.type, f.flags, f.stream, f.payload, f.length, fromClient: fromClient, time: time) }
    }

    /// Bytes the capture missed: skipped inside a DATA frame, fatal for that side's frame layer elsewhere.
    mutating func skip(_ count: Int64, fromClient: Bool) {
        if fromClient { Self.skip(count, &client, &notes, "client") } else { Self.skip(count, &server, &notes, "server") }
    }

    private static func skip(_ count: Int64, _ d: inout Direction, _ notes: inout [String], _ side: String) {
        guard !d.lost else { return }
        // Only DATA payload can be skipped without losing the frame layer or the header table.
        if d.header.isEmpty, d.type == 0, Int64(d.remaining) >= count, d.remaining > 0 {
            d.remaining -= Int(count)
        } else {
            d.lost = true
            notes.append("HTTP/2 frames from the \(side) not read further: \(count) bytes were not captured")
        }
    }

    /// Splits bytes into frames; calls `body` once per complete frame (DATA payloads are counted, not kept).
    private static func frames(_ bytes: UnsafeRawBufferPointer, _ d: inout Direction,
                               _ body: (UInt8, UInt8, UInt32, [UInt8], Int) -> Void) {
        guard !d.lost else { return }
        var i = 0
        if d.prefaceLeft > 0 {
            let n = min(d.prefaceLeft, bytes.count)
            d.prefaceLeft -= n
            i = n
        }
        while i < bytes.count {
            if d.remaining == 0 && d.header.count < 9 {
                let take = min(9 - d.header.count, bytes.count - i)
                d.header += UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)])
                i += take
                guard d.header.count == 9 else { return }
                d.length = Int(d.header[0]) << 16 | Int(d.header[1]) << 8 | Int(d.header[2])
                d.type = d.header[3]
                d.flags = d.header[4]
                d.stream = (UInt32(d.header[5]) << 24 | UInt32(d.header[6]) << 16 | UInt32(d.header[7]) << 8
                    | UInt32(d.header[8])) & 0x7fff_ffff
                d.remaining = d.length
                d.payload = []
                guard d.type == 0 || d.length <= maxKeptPayload else {
                    d.lost = true
                    return
                }
            }
            let n = min(d.remaining, bytes.count - i)
            if d.type != 0 || (d.flags & 0x8 != 0 && d.payload.isEmpty && n > 0) {
                // Keep non-DATA payloads; of a padded DATA frame only the pad length byte.
                let keep = d.type != 0 ? n : 1
                d.payload += UnsafeRawBufferPointer(rebasing: bytes[i..<(i + keep)])
            }
            d.remaining -= n
            i += n
            if d.remaining == 0 {
                body(d.type, d.flags, d.stream, d.payload, d.length)
                d.header = []
            }
        }
    }

    /// Accounts for one complete frame: stream bodies, header blocks, resets.
    private mutating func frame(_ type: UInt8, _ flags: UInt8, _ stream: UInt32, _ payload: [UInt8], _ length: Int,
                                fromClient: Bool, time: Int64) {
        if fromClient { summary.clientFrames += 1 } else { summary.serverFrames += 1 }
        let endStream = flags & 0x1 != 0
        switch type {
        case 0:  // DATA
            let padding = flags & 0x8 != 0 ? Int(payload.first ?? 0) + 1 : 0
            guard let i = streamIndex[stream] else { return }
            let size = Int64(max(0, length - padding))
            if fromClient {
                exchanges[i].requestBodyBytes += size
                if endStream { exchanges[i].requestEndAt = time }
            } else {
                if exchanges[i].responseStartAt == nil { exchanges[i].responseStartAt = time }
                exchanges[i].responseBodyBytes += size
                if endStream { end(stream, time: time) }
            }
        case 1, 9:  // HEADERS, CONTINUATION
            var fragment = payload[...]
            if type == 1 {
                let pad = flags & 0x8 != 0 ? Int(fragment.first ?? 0) : 0
                if flags & 0x8 != 0 { fragment = fragment.dropFirst() }
                if flags & 0x20 != 0 { fragment = fragment.dropFirst(5) }
                fragment = fragment.dropLast(pad)
                if fromClient {
                    client.blockStream = stream
                    client.block = Array(fragment)
                    client.blockEndsStream = endStream
                } else {
                    server.blockStream = stream
                    server.block = Array(fragment)
                    server.blockEndsStream = endStream
                }
            } else if fromClient {
                client.block += fragment
            } else {
                server.block += fragment
            }
            guard flags & 0x4 != 0 else { return }  // END_HEADERS
            headerBlock(fromClient: fromClient, time: time)
        case 3:  // RST_STREAM
            if open.contains(stream) { summary.resetStreams += 1 }
            open.remove(stream)
        case 4 where !fromClient && flags & 0x1 == 0:  // the server's SETTINGS (not an ACK)
            // Six bytes a setting: a 16-bit identifier, a 32-bit value; 0x4 is SETTINGS_INITIAL_WINDOW_SIZE.
            for at in stride(from: 0, to: payload.count - 5, by: 6) where payload[at] == 0 && payload[at + 1] == 4 {
                summary.serverInitialWindowSize = payload[(at + 2)..<(at + 6)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            }
        case 8 where !fromClient && payload.count >= 4:  // the server's WINDOW_UPDATE
            let increment = payload[0..<4].reduce(Int64(0)) { $0 << 8 | Int64($1) } & 0x7fff_ffff
            if stream == 0 {
                summary.serverConnectionCredit += increment
            } else if let i = streamIndex[stream] {
                exchanges[i].serverWindowCredit += increment
            }
        default:
            break
        }
    }

    /// Decodes a complete header block: a new stream's request, or a response's status.
    private mutating func headerBlock(fromClient: Bool, time: Int64) {
        let d = fromClient ? client : server
        let stream = d.blockStream
        let endStream = d.blockEndsStream
        guard let fields = d.decoder.decode(d.block) else {
            if fromClient { client.lost = true } else { server.lost = true }
            notes.append("HTTP/2 headers from the \(fromClient ? "client" : "server") did not decode: not read further")
            return
        }
        let headerBytes = d.block.count
        if fromClient {
            client.block = []
            if let i = streamIndex[stream] {
                if endStream { exchanges[i].requestEndAt = time }  // trailers
                return
            }
            var exchange = HTTPExchange(index: exchanges.count)
            exchange.stream = Int(stream)
            exchange.httpVersion = "HTTP/2"
            exchange.requestStartAt = time
            exchange.requestHeaderBytes = headerBytes
            exchange.method = fields.first { $0.name == ":method" }?.value
            exchange.target = fields.first { $0.name == ":path" }.map { targets.redact(String($0.value.prefix(2048))) }
            if endStream { exchange.requestEndAt = time }
            streamIndex[stream] = exchanges.count
            exchanges.append(exchange)
            open.insert(stream)
            summary.streams += 1
            summary.maxConcurrentStreams = max(summary.maxConcurrentStreams, open.count)
        } else {
            server.block = []
            guard let i = streamIndex[stream] else { return }
            let status = fields.first { $0.name == ":status" }.flatMap { Int($0.value) }
            if let status, status >= 100, status < 200 {
                exchanges[i].interimStatuses.append(status)
                if exchanges[i].interimAt == nil { exchanges[i].interimAt = time }
            } else if let status {
                exchanges[i].statusCode = status
                exchanges[i].responseStartAt = time
                exchanges[i].responseHeaderBytes = headerBytes
            }
            if endStream { end(stream, time: time) }
        }
    }

    /// The server ended a stream: its exchange is complete.
    private mutating func end(_ stream: UInt32, time: Int64) {
        guard let i = streamIndex[stream] else { return }
        exchanges[i].responseEndAt = time
        open.remove(stream)
    }
}
