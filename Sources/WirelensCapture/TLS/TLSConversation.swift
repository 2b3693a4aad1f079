import WirelensCaptureModel

/// A TLS connection read at the record layer: the hellos' clear-text fields, and request/response exchanges
/// inferred from the direction changes of application-data records; with a key log, its records decrypted
/// (`TLSDecryptor`) and their application data handed on for the HTTP reading.
struct TLSConversation {
    /// The plaintext of decrypted application data: bytes, from the client, time of the record's first and last
    /// pieces (µs), the ALPN protocol the server chose (when known).
    typealias Plaintext = (UnsafeRawBufferPointer, Bool, Int64, Int64, String?) -> Void

    /// The record layer of one direction: record boundaries, and the first handshake bytes kept for parsing.
    private struct Direction {
        var header: [UInt8] = []
        var remaining = 0
        var recordType: UInt8 = 0
        /// The record's version bytes and payload length.
        var recordVersion: (UInt8, UInt8, Int) = (3, 3, 0)
        /// Handshake-record payload collected until the hello is parsed (bounded).
        var handshake: [UInt8] = []
        var helloDone = false
        var lost = false
    }

    /// Handshake bytes kept per direction at most while looking for a hello.
    static let maxHelloBytes = 32 * 1024

    private var client = Direction()
    private var server = Direction()
    private var storedInfo = TLSInfo()
    private var inferred: [HTTPExchange] = []
    /// The key log, when one was given, and the decryption once both hellos were read.
    private let keyLog: KeyLog?
    private(set) var decryptor: TLSDecryptor?
    /// The ClientHello's values the decryption needs until the ServerHello comes.
    private var clientHello: Hello?

    /// A TLS connection, decrypted with `keyLog` when given.
    init(keyLog: KeyLog? = nil) {
        self.keyLog = keyLog
    }

    /// The clear-text fields, and how the decryption went.
    var info: TLSInfo {
        var result = storedInfo
        guard keyLog != nil else { return result }
        if let decryptor {
            (result.decryption, result.decryptionNote) = decryptor.status
            result.cipherSuite = decryptor.suiteName
            if result.chosenALPN == nil { result.chosenALPN = decryptor.chosenALPN }
        } else {
            result.decryption = .handshakeMissing
            result.decryptionNote = "the capture holds no ClientHello and ServerHello of this connection"
        }
        return result
    }

    /// True while the records are decrypted: the HTTP reading of their plaintext replaces the inferred exchanges.
    var decrypts: Bool { decryptor?.decrypts == true }

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

    /// In-order bytes from one side, arrived at `time` (µs); decrypted application data goes to `plaintext`.
    mutating func receive(_ bytes: UnsafeRawBufferPointer, fromClient: Bool, time: Int64, plaintext: Plaintext) {
        var pieces: [(UInt8, (UInt8, UInt8, Int), UnsafeRawBufferPointer, Bool, Bool)] = []
        if fromClient {
            Self.records(bytes, &client) { pieces.append(($0, $1, $2, $3, $4)) }
        } else {
            Self.records(bytes, &server) { pieces.append(($0, $1, $2, $3, $4)) }
        }
        for (type, version, payload, first, last) in pieces {
            record(type, payload, first, last, fromClient, time)
            if decryptor != nil, decryptor?.wantsBytes(fromClient: fromClient) == true {
                let alpn = storedInfo.chosenALPN
                decryptor?.piece(payload, header: (type, version.0, version.1, version.2), first: first, last: last,
                                 fromClient: fromClient, time: time) { plaintext($0, fromClient, $1, $2, alpn ?? $3) }
            }
        }
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
                                _ body: (UInt8, (UInt8, UInt8, Int), UnsafeRawBufferPointer, Bool, Bool) -> Void) {
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
                d.recordVersion = (d.header[1], d.header[2], Int(d.header[3]) << 8 | Int(d.header[4]))
                d.remaining = Int(d.header[3]) << 8 | Int(d.header[4])
                d.header = []
                if d.remaining == 0 {
                    body(type, d.recordVersion, UnsafeRawBufferPointer(start: nil, count: 0), true, true)
                    continue
                }
                let n = min(d.remaining, bytes.count - i)
                d.remaining -= n
                body(type, d.recordVersion, UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]), true, d.remaining == 0)
                i += n
            } else {
                let n = min(d.remaining, bytes.count - i)
                d.remaining -= n
                body(d.recordType, d.recordVersion, UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]), false,
                     d.remaining == 0)
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
                    storedInfo.serverName = hello.serverName
                    storedInfo.offeredALPN = hello.alpn
                    if keyLog != nil { clientHello = hello }
                }
            } else {
                Self.collect(payload, &server)
                if !server.helloDone, let hello = Self.parseHello(server.handshake, client: false) {
                    server.helloDone = true
                    server.handshake = []
                    storedInfo.version = hello.version.map(TLSInfo.versionName)
                    storedInfo.chosenALPN = hello.alpn.first
                    if let keyLog { startDecryption(keyLog, serverHello: hello) }
                }
            }
        case 23:  // application data
            // In TLS 1.3 the client's first encrypted record is its Finished, not a request: skip it whole.
            if fromClient && (skippingFinished || (first && storedInfo.version == "TLSv1.3" && !finishedSkipped)) {
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

    /// The fields of a ClientHello or ServerHello that the report and the decryption use.
    struct Hello {
        var serverName: String?
        var alpn: [String] = []
        /// ServerHello: supported_versions, else the legacy version.
        var version: UInt16?
        var random: [UInt8] = []
        var sessionID: [UInt8] = []
        /// ServerHello: the chosen cipher suite.
        var cipherSuite: UInt16?
        /// ClientHello: the session_ticket extension's ticket.
        var ticket: [UInt8] = []
        /// ServerHello: a pre_shared_key extension (TLS 1.3 resumption).
        var pskAccepted = false
    }

    /// Starts the decryption once both hellos are read (a resumed TLS 1.2 session: the server echoes the client's
    /// session id).
    private mutating func startDecryption(_ keyLog: KeyLog, serverHello: Hello) {
        guard let clientHello, clientHello.random.count == 32, let suite = serverHello.cipherSuite else { return }
        let tls13 = serverHello.version == 0x0304
        storedInfo.resumed = tls13 ? serverHello.pskAccepted
            : !serverHello.sessionID.isEmpty && serverHello.sessionID == clientHello.sessionID
        let identities = tls13 ? [] : [serverHello.sessionID, clientHello.ticket]
        decryptor = TLSDecryptor(keyLog: keyLog, clientRandom: clientHello.random, serverRandom: serverHello.random,
                                 suite: suite, tls13: tls13, sessionIdentities: identities)
        self.clientHello = nil
    }

    /// The fields of a ClientHello or ServerHello at the start of `bytes`, once it is whole.
    static func parseHello(_ bytes: [UInt8], client: Bool) -> Hello? {
        guard bytes.count >= 4, bytes[0] == (client ? 1 : 2) else { return nil }
        let length = Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 4 + length else { return nil }
        var hello = Hello()
        var reader = Reader(bytes: Array(bytes[4..<(4 + length)]))
        guard let legacy = reader.u16(), let random = reader.take(32), let sessionLength = reader.u8(),
              let session = reader.take(Int(sessionLength))
        else { return hello }
        hello.random = Array(random)
        hello.sessionID = Array(session)
        if client {
            guard let suites = reader.u16(), reader.skip(Int(suites)), let compressions = reader.u8(),
                  reader.skip(Int(compressions)) else { return hello }
        } else {
            hello.version = legacy
            guard let suite = reader.u16(), reader.skip(1) else { return hello }
            hello.cipherSuite = suite
        }
        guard let extensionsLength = reader.u16(), var extensions = reader.sub(Int(extensionsLength)) else {
            return hello
        }
        while let type = extensions.u16(), let size = extensions.u16(), var data = extensions.sub(Int(size)) {
            switch type {
            case 0x0000 where client:
                if data.skip(2), let kind = data.u8(), kind == 0, let n = data.u16(), let name = data.take(Int(n)) {
                    hello.serverName = String(decoding: name, as: UTF8.self)
                }
            case 0x0010:
                if data.skip(2) {
                    while let n = data.u8(), let name = data.take(Int(n)) {
                        hello.alpn.append(String(decoding: name, as: UTF8.self))
                    }
                }
            case 0x0023 where client:
                hello.ticket = data.bytes
            case 0x0029 where !client:
                hello.pskAccepted = true
            case 0x002b where !client:
                hello.version = data.u16() ?? hello.version
            default:
                break
            }
        }
        return hello
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
