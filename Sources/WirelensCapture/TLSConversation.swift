import WirelensCaptureModel

/// A TLS connection read at the record layer: the hellos' clear-text fields, and request/response exchanges
/// inferred from the direction changes of application-data records.
struct TLSConversation {
    /// The record layer of one direction: record boundaries, and the first handshake bytes kept for parsing.
    private struct Direction {
        var header: [UInt8] = []
        var remaining = 0
        var recordType: UInt8 = 0
        /// Handshake-record payload collected until the hello is parsed (bounded).
        var handshake: [UInt8] = []
        var helloDone = false
        var lost = false
    }

    /// Handshake bytes kept per direction at most while looking for a hello.
    static let maxHelloBytes = 32 * 1024

    private var client = Direction()
    private var server = Direction()
    private(set) var info = TLSInfo()
    private var inferred: [HTTPExchange] = []
    /// Encrypted records this small, sent last and unanswered, are taken for a close_notify alert (TLS 1.3
    /// encrypts alerts as application data), not a request.
    static let alertSize: Int64 = 32

    /// The inferred exchanges, without a trailing encrypted alert.
    var exchanges: [HTTPExchange] {
        guard let last = inferred.last, last.responseStartAt == nil, last.requestBodyBytes <= Self.alertSize else {
            return inferred
        }
        return Array(inferred.dropLast())
    }
    /// The client's TLS 1.3 Finished record was skipped (or is being skipped, piece by piece).
    private var finishedSkipped = false
    private var skippingFinished = false
    /// Which side sent the last application-data record, to see direction changes.
    private var lastDataFromClient: Bool?
    private(set) var notes: [String] = []

    /// True while the record layer of that side can still be followed.
    func wantsBytes(fromClient: Bool) -> Bool { !(fromClient ? client.lost : server.lost) }

    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64) {
        var pieces: [(UInt8, UnsafeRawBufferPointer, Bool, Bool)] = []
        if fromClient {
            Self.records(bytes, &client) { pieces.append(($0, $1, $2, $3)) }
        } else {
            Self.records(bytes, &server) { pieces.append(($0, $1, $2, $3)) }
        }
        for (type, payload, first, last) in pieces { record(type, payload, first, last, fromClient, time) }
    }

    /// Bytes the capture missed: skipped inside a record, fatal for the record layer elsewhere.
    mutating func skip(_ count: Int64, fromClient: Bool) {
        if fromClient { Self.skip(count, &client, &notes, "client") } else { Self.skip(count, &server, &notes, "server") }
    }

    private static func skip(_ count: Int64, _ d: inout Direction, _ notes: inout [String], _ side: String) {
        guard !d.lost else { return }
        if d.header.isEmpty && Int64(d.remaining) >= count {
            d.remaining -= Int(count)
        } else {
            d.lost = true
            notes.append("TLS records from the \(side) not followed further: \(count) bytes were not captured")
        }
    }

    /// Splits bytes into records; calls `body` with each piece of record payload (type, bytes, is first piece,
    /// is last piece).
    private static func records(_ bytes: UnsafeRawBufferPointer, _ d: inout Direction,
                                _ body: (UInt8, UnsafeRawBufferPointer, Bool, Bool) -> Void) {
        // The pieces point into `bytes`: the caller uses them before `bytes` goes away.
        guard !d.lost else { return }
        var i = 0
        while i < bytes.count {
            if d.remaining == 0 {
                let take = min(5 - d.header.count, bytes.count - i)
                d.header += UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)])
                i += take
                guard d.header.count == 5 else { return }
                let type = d.header[0]
                guard (20...24).contains(type), d.header[1] == 3 else {
                    d.lost = true
                    return
                }
                d.recordType = type
                d.remaining = Int(d.header[3]) << 8 | Int(d.header[4])
                d.header = []
                if d.remaining == 0 {
                    body(type, UnsafeRawBufferPointer(start: nil, count: 0), true, true)
                    continue
                }
                let n = min(d.remaining, bytes.count - i)
                d.remaining -= n
                body(type, UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]), true, d.remaining == 0)
                i += n
            } else {
                let n = min(d.remaining, bytes.count - i)
                d.remaining -= n
                body(d.recordType, UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]), false, d.remaining == 0)
                i += n
            }
        }
    }

    private mutating func record(_ type: UInt8, _ payload: UnsafeRawBufferPointer, _ first: Bool, _ last: Bool,
                                 _ fromClient: Bool, _ time: Int64) {
        switch type {
        case 22:  // handshake: collect until the hello parses
            if fromClient {
                Self.collect(payload, &client)
                if !client.helloDone, let hello = Self.parseHello(client.handshake, client: true) {
                    client.helloDone = true
                    client.handshake = []
                    info.serverName = hello.serverName
                    info.offeredALPN = hello.alpn
                }
            } else {
                Self.collect(payload, &server)
                if !server.helloDone, let hello = Self.parseHello(server.handshake, client: false) {
                    server.helloDone = true
                    server.handshake = []
                    info.version = hello.version.map(TLSInfo.versionName)
                    info.chosenALPN = hello.alpn.first
                }
            }
        case 23:  // application data
            // In TLS 1.3 the client's first encrypted record is its Finished, not a request: skip it whole.
            if fromClient && (skippingFinished || (first && info.version == "TLSv1.3" && !finishedSkipped)) {
                finishedSkipped = true
                skippingFinished = !last
                return
            }
            // Server records before the client's first request are the end of its handshake flight and the
            // session tickets that answer the client's Finished (TLS 1.3).
            if !fromClient && lastDataFromClient == nil { return }
            if first && lastDataFromClient != fromClient {
                if fromClient {
                    var exchange = HTTPExchange(index: inferred.count)
                    exchange.requestStartAt = time
                    exchange.inferred = true
                    inferred.append(exchange)
                } else if let i = inferred.indices.last {
                    inferred[i].responseStartAt = time
                }
                lastDataFromClient = fromClient
            }
            extendData(fromClient: fromClient, time: time)
            addBytes(payload.count, fromClient: fromClient)
        default:
            break
        }
    }

    private mutating func extendData(fromClient: Bool, time: Int64) {
        guard let i = inferred.indices.last, lastDataFromClient == fromClient else { return }
        if fromClient { inferred[i].requestEndAt = time } else { inferred[i].responseEndAt = time }
    }

    private mutating func addBytes(_ count: Int, fromClient: Bool) {
        guard let i = inferred.indices.last, lastDataFromClient == fromClient else { return }
        if fromClient { inferred[i].requestBodyBytes += Int64(count) } else { inferred[i].responseBodyBytes += Int64(count) }
    }

    private static func collect(_ payload: UnsafeRawBufferPointer, _ d: inout Direction) {
        guard !d.helloDone, d.handshake.count + payload.count <= maxHelloBytes else { return }
        d.handshake += payload
    }

    /// The fields of a ClientHello or ServerHello at the start of `bytes`, once it is whole.
    static func parseHello(_ bytes: [UInt8], client: Bool) -> (serverName: String?, alpn: [String], version: UInt16?)? {
        guard bytes.count >= 4, bytes[0] == (client ? 1 : 2) else { return nil }
        let length = Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 4 + length else { return nil }
        var reader = Reader(bytes: Array(bytes[4..<(4 + length)]))
        guard let legacy = reader.u16(), reader.skip(32), let sessionLength = reader.u8(), reader.skip(Int(sessionLength))
        else { return (nil, [], nil) }
        if client {
            guard let suites = reader.u16(), reader.skip(Int(suites)), let compressions = reader.u8(),
                  reader.skip(Int(compressions)) else { return (nil, [], nil) }
        } else {
            guard reader.skip(3) else { return (nil, [], legacy) }
        }
        var serverName: String?
        var alpn: [String] = []
        var version: UInt16? = client ? nil : legacy
        guard let extensionsLength = reader.u16(), var extensions = reader.sub(Int(extensionsLength)) else {
            return (nil, [], version)
        }
        while let type = extensions.u16(), let size = extensions.u16(), var data = extensions.sub(Int(size)) {
            switch type {
            case 0x0000 where client:
                if data.skip(2), let kind = data.u8(), kind == 0, let n = data.u16(), let name = data.take(Int(n)) {
                    serverName = String(decoding: name, as: UTF8.self)
                }
            case 0x0010:
                if data.skip(2) {
                    while let n = data.u8(), let name = data.take(Int(n)) { alpn.append(String(decoding: name, as: UTF8.self)) }
                }
            case 0x002b where !client:
                version = data.u16() ?? version
            default:
                break
            }
        }
        return (serverName, alpn, version)
    }

    /// Bounds-checked big-endian reads over a byte array.
    struct Reader {
        var bytes: [UInt8]
        var position = 0

        mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, position + n <= bytes.count else { return nil }
            defer { position += n }
            return bytes[position..<(position + n)]
        }

        mutating func skip(_ n: Int) -> Bool { take(n) != nil }
        mutating func u8() -> UInt8? { take(1)?.first }
        mutating func u16() -> UInt16? { take(2).map { UInt16($0[$0.startIndex]) << 8 | UInt16($0[$0.startIndex + 1]) } }
        mutating func sub(_ n: Int) -> Reader? { take(n).map { Reader(bytes: Array($0)) } }
    }
}
